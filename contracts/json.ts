import { z } from 'zod';

/** A JSON value: the only kind of data allowed to cross a Temporal payload boundary. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Schema for {@link JsonValue}; rejects undefined, functions, Maps, Dates and class instances. */
export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

/** A JSON object (string keys, JSON values). */
export const jsonObjectSchema = z.record(z.string(), jsonValueSchema);
export type JsonObject = z.infer<typeof jsonObjectSchema>;

/**
 * Byte length of a value's JSON encoding (UTF-8), computed without Node APIs so it is
 * usable inside the workflow sandbox.
 */
export function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value) ?? 'null';
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * One-line description of why a value failed a schema: `path: message; path: message`.
 * Used in every error a caller sees for bad input.
 */
export function describeIssues(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
