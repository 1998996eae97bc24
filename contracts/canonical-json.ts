/**
 * JSON with object keys sorted at every level, so two equal values always serialize the same way
 * whatever order their keys were built in. Drops `undefined` properties like JSON.stringify does,
 * and writes an `undefined` array element as `null`. Pure: the workflow, the worker and the
 * clients compute the same string.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}
