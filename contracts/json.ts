import { z } from 'zod';
import { builtOnce } from './lazy';
import { echoed, isWellFormedText } from './safe-text';

/** A JSON value: the only kind of data allowed to cross a Temporal payload boundary. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Deeper than this, {@link isPlainJson} leaves a value to the full schema (a cycle ends up there too). */
const plainJsonMaxDepth = 256;

/**
 * Whether a value is JSON data of the plainest kind: strings, finite numbers, booleans, null,
 * dense arrays and plain objects without symbol or `__proto__` keys, nested at most
 * {@link plainJsonMaxDepth} levels. Every such value passes {@link jsonUnionSchema} unchanged
 * but for copies, so it can skip that parse. False means "not sure": the union decides.
 */
export function isPlainJson(value: unknown): boolean {
  const nodes: unknown[] = [value];
  const depths: number[] = [1];
  while (nodes.length) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    if (typeof node === 'string' || typeof node === 'boolean' || node === null) continue;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return false;
      continue;
    }
    if (typeof node !== 'object' || depth > plainJsonMaxDepth) return false;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        if (!(i in node)) return false;
        nodes.push(node[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(node);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key of Reflect.ownKeys(node)) {
      if (typeof key !== 'string' || key === '__proto__') return false;
      nodes.push((node as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return true;
}

/** The full check of {@link jsonValueSchema}: what decides, and explains, every value that is not plain. */
const jsonUnionSchema: () => z.ZodType<JsonValue> = builtOnce(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValueSchema()), z.record(z.string(), jsonValueSchema())]),
);

/**
 * Schema for {@link JsonValue}; rejects undefined, functions, Maps, Dates and class instances.
 * Plain JSON (every tool result, model answer and planner option that came through a payload)
 * passes as it is, in one walk: the zod union took 10-30 ms for a 100 KB tool result, in the
 * workflow, at every replay. Anything else goes through the union, which gives the same
 * result and the same issues as before.
 */
export const jsonValueSchema: () => z.ZodType<JsonValue> = builtOnce(
  (): z.ZodType<JsonValue> =>
    z.unknown().transform((value, ctx): JsonValue => {
      if (isPlainJson(value)) return value as JsonValue;
      const checked = jsonUnionSchema().safeParse(value);
      if (checked.success) return checked.data;
      for (const issue of checked.error.issues) ctx.addIssue({ ...issue } as Parameters<typeof ctx.addIssue>[0]);
      return z.NEVER;
    }),
);

/** A JSON object (string keys, JSON values). */
export const jsonObjectSchema = builtOnce(() => z.record(z.string(), jsonValueSchema()));
export type JsonObject = z.infer<ReturnType<typeof jsonObjectSchema>>;

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
  // A path holds the caller's keys and a message may quote them (zod's "Unrecognized key"): both are echoes.
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.map((key) => echoed(String(key))).join('.') : '(root)'}: ${echoed(issue.message, maxIssueChars)}`)
    .join('; ');
}

/** Longest message of one issue in {@link describeIssues}. */
const maxIssueChars = 300;

/** Deepest nesting accepted in a JSON value that enters a run from outside (answers, edits). */
export const maxInputJsonDepth = 64;

/**
 * Deeper than this, a value is refused wherever it enters, before a recursive schema meets it:
 * far above what anything taken nests (a run's carried state, a UI's echo of a conversation), far
 * below where the stack ends (some thousands of levels).
 */
export const maxSafeJsonDepth = 1000;

/** Whether a value nests deeper than `max` levels (iterative: any depth is safe to check). */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node as Record<string, unknown>)) stack.push({ node: child, depth: depth + 1 });
  }
  return false;
}

/**
 * The first field of an object that nests deeper than `maxDepth` levels (default
 * {@link maxInputJsonDepth}; of the fields `checked` keeps, all by default), or undefined (also for a value that is not an object).
 * Walks without recursion: input from outside is checked with it before a recursive schema meets
 * it, since a value some thousands of levels deep (any client can send one) overflows the stack
 * there.
 */
export function fieldNestedTooDeep(value: unknown, checked: (field: string) => boolean = () => true, maxDepth = maxInputJsonDepth): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return Object.keys(value).find((field) => checked(field) && jsonDepthExceeds((value as Record<string, unknown>)[field], maxDepth));
}

/**
 * Where an input nests too deep: the first of the fields a client gives (`given`) nested deeper
 * than {@link maxInputJsonDepth} levels, else the first field of any kind (what a run or session
 * carries across continue-as-new, which only the runtime writes but any client can send) deeper
 * than {@link maxSafeJsonDepth}. Undefined when neither, or for a value that is not an object.
 * Check it before the recursive schemas meet the input.
 */
export function inputNestedTooDeep(input: unknown, given: (field: string) => boolean): { field: string; levels: number } | undefined {
  const field = fieldNestedTooDeep(input, given);
  if (field !== undefined) return { field, levels: maxInputJsonDepth };
  const carried = fieldNestedTooDeep(input, () => true, maxSafeJsonDepth);
  return carried === undefined ? undefined : { field: carried, levels: maxSafeJsonDepth };
}

/**
 * A JSON value from outside a run (a human's answer, an operator's edited arguments): nested at
 * most {@link maxInputJsonDepth} levels, checked before the recursive schema runs, so a hostile
 * value is refused instead of entering events that every reader then fails on.
 */
export const inputJsonValueSchema: () => z.ZodType<JsonValue, unknown> = builtOnce(() =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (jsonDepthExceeds(value, maxInputJsonDepth)) ctx.addIssue({ code: 'custom', message: `nested deeper than ${maxInputJsonDepth} levels` });
    })
    .pipe(jsonValueSchema()),
);

/** An id or name given from outside a run: non-empty, well-formed Unicode (no lone surrogates). */
export const inputIdSchema = builtOnce(() =>
  z
    .string()
    .min(1)
    .refine((text) => isWellFormedText(text), { message: 'must be well-formed Unicode text (it has a lone surrogate)' }),
);

/**
 * Upper bound of a run's session state in JSON bytes. It travels with every tool call and
 * across continue-as-new, so a tool that would grow it past this fails instead.
 */
export const sessionStateMaxBytes = 256 * 1024;
