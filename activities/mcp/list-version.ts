import { createHash } from 'node:crypto';

/** A tool of a server as `tools/list` gave it (the fields a run depends on). */
export interface ServerTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
}

/** JSON with object keys sorted, so equal lists hash equally whatever order the server wrote keys in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Version of a server's tool list: a content hash (16 hex digits) of names, descriptions and schemas, independent of order. */
export function toolListVersion(tools: readonly ServerTool[]): string {
  const items = tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return createHash('sha256').update(canonical(items)).digest('hex').slice(0, 16);
}
