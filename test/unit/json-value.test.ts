/**
 * jsonValueSchema skips the zod union for plain JSON. It must accept, reject and explain exactly
 * what the union does: checked here against the union itself, value by value, alone and nested
 * in an object schema (paths).
 */
import { z } from 'zod';
import { describeIssues, isPlainJson, jsonValueSchema } from '../../contracts';

const reference: z.ZodType = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(reference), z.record(z.string(), reference)]));

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

const shared = { k: [1, 2] };
const withSymbolKey = { a: 1, [Symbol('s')]: 2 };
const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: [true] });

const valid: [string, unknown][] = [
  ['a string', 'x'],
  ['a lone surrogate', '\ud800'],
  ['zero and minus zero', [0, -0]],
  ['a large number', 1e300],
  ['booleans and null', [true, false, null]],
  ['empty containers', { a: {}, b: [] }],
  ['a nested document', { id: 1, name: 'n', tags: ['a', 'b'], price: 1.5, inner: { x: null, y: [{ z: 'deep' }] } }],
  ['numeric-looking keys', { '2': 'b', '1': 'a', x: 'c' }],
  ['an object without prototype', nullProto],
  ['the same object twice', { a: shared, b: shared }],
  ['a __proto__ key from JSON.parse', JSON.parse('{"__proto__": {"x": 1}, "a": 2}')],
  ['300 levels (beyond the fast walk)', nested(300, 'leaf')],
];

const invalid: [string, unknown][] = [
  ['undefined', undefined],
  ['an undefined member', { a: undefined }],
  ['an undefined element', [1, undefined]],
  ['a hole', [1, , 3]],
  ['NaN', Number.NaN],
  ['a nested Infinity', { a: { b: [1, Number.POSITIVE_INFINITY] } }],
  ['a Date', new Date(0)],
  ['a Map', new Map([['a', 1]])],
  ['a function', () => 1],
  ['a bigint', 10n],
  ['a symbol', Symbol('s')],
  ['a symbol key', withSymbolKey],
  ['a class instance', new Point(1, 2)],
  ['a nested class instance', { p: [new Point(1, 2)] }],
  ['a boxed string', new String('x')],
  ['deep bad leaf', { a: { b: [1, { c: undefined }] } }],
  ['300 levels, bad leaf', nested(300, undefined)],
];

describe('jsonValueSchema', () => {
  it.each(valid)('accepts %s, with the union\'s result', (_name, value) => {
    const ours = jsonValueSchema.safeParse(value);
    const theirs = reference.safeParse(value);
    expect(ours.success).toBe(true);
    expect(theirs.success).toBe(true);
    expect(ours.data).toEqual(theirs.data);
    expect(JSON.stringify(ours.data)).toBe(JSON.stringify(theirs.data));
  });

  it.each(invalid)('rejects %s with the union\'s issues', (_name, value) => {
    const ours = jsonValueSchema.safeParse(value);
    const theirs = reference.safeParse(value);
    expect(theirs.success).toBe(false);
    expect(ours.success).toBe(false);
    expect(describeIssues(ours.error!)).toBe(describeIssues(theirs.error!));
    expect(ours.error!.issues.map((i) => i.code)).toEqual(theirs.error!.issues.map((i) => i.code));
  });

  it.each(invalid)('nested in an object, rejects %s at the same path', (_name, value) => {
    const ours = z.object({ result: jsonValueSchema.optional(), list: z.array(jsonValueSchema) }).safeParse({ result: value, list: ['ok', value] });
    const theirs = z.object({ result: reference.optional(), list: z.array(reference) }).safeParse({ result: value, list: ['ok', value] });
    expect(ours.success).toBe(theirs.success);
    if (!ours.success && !theirs.success) expect(describeIssues(ours.error)).toBe(describeIssues(theirs.error));
  });

  it('walks plain JSON only: anything unusual is left to the union', () => {
    expect(isPlainJson({ a: [1, 'x', null, { b: true }] })).toBe(true);
    expect(isPlainJson(JSON.parse('{"__proto__": 1}'))).toBe(false);
    expect(isPlainJson(nested(300, 1))).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(isPlainJson(cyclic)).toBe(false);
  });

  it('returns plain JSON as it is, without a copy', () => {
    const value = { a: [1, { b: 'c' }] };
    expect(jsonValueSchema.parse(value)).toBe(value);
  });
});
