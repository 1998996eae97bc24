import { isPlainJson } from './json';

/**
 * Fast paths for the values every run parses: its input, each plan and each tool activity's
 * answer. The zod schemas stay the contract; these checks mirror them for the plain, common
 * shapes and give exactly zod's output (same values, same key order, defaults applied, unknown
 * keys dropped). Anything they are not sure of — an invalid value, a rare field, a class
 * instance — is {@link unsure}, and zod decides and explains it.
 *
 * Why: the SDK evaluates a workflow bundle's modules afresh for every execution, so zod builds
 * and compiles each schema again in every run before its first parse. For a short run that was
 * about a third of the workflow thread's CPU. `test/unit/fast-parse.test.ts` holds each mirror
 * to its schema: same result on a corpus of valid and invalid values, and the same field names.
 */

/** "Not sure": let the zod schema parse the value. */
export const unsure: unique symbol = Symbol('unsure');
export type Fast<T> = T | typeof unsure;

/** Parses one value: its output as the schema would give it, or {@link unsure}. */
export type FastCheck<T = unknown> = (value: unknown) => Fast<T>;

/** How an object field treats a missing key (or an explicit `undefined`). */
interface FastField {
  readonly check: FastCheck;
  /** `optional`: absent stays absent, `undefined` stays `undefined`; a function builds the default. */
  readonly missing: 'required' | 'optional' | (() => unknown);
}

export type FastShape = Readonly<Record<string, FastField>>;

export const required = (check: FastCheck): FastField => ({ check, missing: 'required' });
export const optional = (check: FastCheck): FastField => ({ check, missing: 'optional' });
export const withDefault = (check: FastCheck, make: () => unknown): FastField => ({ check, missing: make });

/** Plain objects only (a JSON payload's): class instances, arrays and the like go to zod. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** `z.object(shape)` (strip): fields in shape order, unknown keys dropped. */
export function object<T = Record<string, unknown>>(shape: FastShape): FastCheck<T> {
  const keys = Object.keys(shape);
  return (value) => {
    if (!isPlainObject(value)) return unsure;
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      const field = shape[key]!;
      const v = hasOwn(value, key) ? value[key] : undefined;
      if (v === undefined) {
        if (field.missing === 'required') return unsure;
        if (field.missing === 'optional') {
          if (hasOwn(value, key)) out[key] = undefined;
        } else out[key] = field.missing();
        continue;
      }
      const parsed = field.check(v);
      if (parsed === unsure) return unsure;
      out[key] = parsed;
    }
    return out as T;
  };
}

/** `z.discriminatedUnion(key, options)`: only the options given here; other tags go to zod. */
export function tagged<T>(key: string, options: Readonly<Record<string, FastCheck>>): FastCheck<T> {
  return (value) => {
    if (!isPlainObject(value)) return unsure;
    const tag = value[key];
    const option = typeof tag === 'string' && hasOwn(options, tag) ? options[tag] : undefined;
    return option ? (option(value) as Fast<T>) : unsure;
  };
}

/** `z.array(item)` with optional `.min` / `.max`: a new array. */
export function array<T>(item: FastCheck<T>, min = 0, max = Number.POSITIVE_INFINITY): FastCheck<T[]> {
  return (value) => {
    if (!Array.isArray(value) || value.length < min || value.length > max) return unsure;
    const out: T[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return unsure;
      const parsed = item(value[i]);
      if (parsed === unsure) return unsure;
      out.push(parsed);
    }
    return out;
  };
}

/** `z.record(z.string(), value)` over a plain object with plain keys: a new object, keys in order. */
export function record<T>(item: FastCheck<T>): FastCheck<Record<string, T>> {
  return (value) => {
    if (!isPlainObject(value)) return unsure;
    const out: Record<string, T> = {};
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key !== 'string' || key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, key)) return unsure;
      const parsed = item(value[key]);
      if (parsed === unsure) return unsure;
      out[key] = parsed;
    }
    return out;
  };
}

/** `z.string()` with optional `.min` / `.max` (UTF-16 length) and `.regex`. */
export function string(min = 0, max = Number.POSITIVE_INFINITY, pattern?: RegExp): FastCheck<string> {
  return (value) => (typeof value === 'string' && value.length >= min && value.length <= max && (!pattern || pattern.test(value)) ? value : unsure);
}

export const anyString = string();
export const nonEmptyString = string(1);
export const boolean: FastCheck<boolean> = (value) => (typeof value === 'boolean' ? value : unsure);
/** `z.number().int().positive()` (zod's int is a safe integer). */
export const positiveInt: FastCheck<number> = (value) => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : unsure);
/** `z.number().positive()` (zod's number is finite). */
export const positiveNumber: FastCheck<number> = (value) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : unsure);
/** `z.number().int().nonnegative()`. */
export const nonNegativeInt: FastCheck<number> = (value) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : unsure);
/** `jsonValueSchema`: plain JSON passes as it is (the schema returns it as it is too). */
export const json: FastCheck = (value) => (isPlainJson(value) ? value : unsure);
/** `z.unknown()`. */
export const anything: FastCheck = (value) => value;

/** `z.enum(values)` or a single `z.literal`. */
export function oneOf<T extends string>(...values: readonly T[]): FastCheck<T> {
  return (value) => (typeof value === 'string' && (values as readonly string[]).includes(value) ? (value as T) : unsure);
}

/**
 * Runs a fast check, then the schema when it is not sure: a zod-style safe-parse result either
 * way. `schema` is the schema's builder (contracts/lazy.ts), so a run whose values all pass the
 * fast check never builds the schema.
 */
export function fastSafeParse<T, R>(check: FastCheck<T>, value: unknown, schema: () => { safeParse(value: unknown): R }): R | { success: true; data: T } {
  const fast = check(value);
  return fast === unsure ? schema().safeParse(value) : { success: true, data: fast };
}
