/** Strings leaving an activity are made well-formed: values and failures, copied only when needed. */
import { ApplicationFailure } from '@temporalio/common';
import { wellFormedValue } from '../../contracts/safe-text';
import { wellFormedError } from '../../worker/well-formed-activity';

const lone = `a${String.fromCharCode(0xd800)}b`;

describe('wellFormedValue', () => {
  it('replaces lone surrogates in strings, keys and nested values with U+FFFD', () => {
    expect(wellFormedValue({ [lone]: [lone, { x: lone }], n: 1 })).toEqual({ 'a\ufffdb': ['a\ufffdb', { x: 'a\ufffdb' }], n: 1 });
  });

  it('keeps a surrogate pair (an emoji) as it is', () => {
    expect(wellFormedValue('ok 😀')).toBe('ok 😀');
  });

  it('returns the same object when nothing needed a change', () => {
    const value = { a: ['x', { b: 'y' }], c: null };
    expect(wellFormedValue(value)).toBe(value);
  });
});

describe('wellFormedError', () => {
  it('returns a clean error itself', () => {
    const err = new Error('fine');
    expect(wellFormedError(err)).toBe(err);
  });

  it('cleans message, name, stack and causes of a plain error', () => {
    const err = new Error(lone, { cause: new Error(lone) });
    err.name = lone;
    const clean = wellFormedError(err) as Error;
    expect(clean.message).toBe('a\ufffdb');
    expect(clean.name).toBe('a\ufffdb');
    expect(clean.stack).not.toMatch(/[\ud800-\udfff]/);
    expect((clean.cause as Error).message).toBe('a\ufffdb');
  });

  it('keeps an ApplicationFailure one, with its type, retryability and details cleaned', () => {
    const clean = wellFormedError(ApplicationFailure.create({ message: lone, type: lone, nonRetryable: true, details: [{ hint: lone }] }));
    expect(clean).toBeInstanceOf(ApplicationFailure);
    expect(clean).toMatchObject({ message: 'a\ufffdb', type: 'a\ufffdb', nonRetryable: true, details: [{ hint: 'a\ufffdb' }] });
  });
});
