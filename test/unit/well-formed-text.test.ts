/** Strings leaving an activity are made well-formed: values and failures, copied only when needed. */
import { ApplicationFailure } from '@temporalio/common';
import { describeIssues } from '../../contracts/json';
import { echoed, echoedList, maxEchoChars, wellFormedValue } from '../../contracts/safe-text';
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

describe('echoes of a caller\'s ids in messages', () => {
  it('keeps a short id as it is and cuts a long one to 100 characters with a note', () => {
    expect(echoed('call_0_0')).toBe('call_0_0');
    expect(echoed('x'.repeat(2000))).toBe(`${'x'.repeat(maxEchoChars)}… (1900 more characters)`);
    expect(echoed('a\ud800')).toBe('a\ufffd');
  });

  it('lists the first ten ids and counts the rest', () => {
    expect(echoedList(['a', 'b'])).toBe('a, b');
    expect(echoedList(Array.from({ length: 12 }, (_, i) => `c${i}`))).toBe('c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and 2 more');
  });

  it('describeIssues cuts the keys of a path and the message of an issue', () => {
    const text = describeIssues({ issues: [{ path: ['answers', 'k'.repeat(500)], message: `Unrecognized key: "${'k'.repeat(500)}"` }] });
    expect(text).toBe(`answers.${'k'.repeat(100)}… (400 more characters): Unrecognized key: "${'k'.repeat(281)}… (220 more characters)`);
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
