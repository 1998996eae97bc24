import { childConfirmation, hasConfirmation } from '../../workflows/calls/child-confirmation';

describe('hasConfirmation', () => {
  it('is false for no confirmation and for the defaults a parsed input fills in', () => {
    expect(hasConfirmation(undefined)).toBe(false);
    expect(hasConfirmation({ all: false, tools: [], exempt: [] })).toBe(false);
  });

  it('is true for anything that confirms, exempts, rules or notifies', () => {
    expect(hasConfirmation({ all: true })).toBe(true);
    expect(hasConfirmation({ tools: ['transfer'] })).toBe(true);
    expect(hasConfirmation({ exempt: ['echo'] })).toBe(true);
    expect(hasConfirmation({ rules: { version: 'v', rules: [] } })).toBe(true);
    expect(hasConfirmation({ notify: true })).toBe(true);
  });
});

describe('childConfirmation', () => {
  it('passes nothing down from a parent without a confirmation', () => {
    expect(childConfirmation(undefined)).toEqual({});
    expect(childConfirmation({ all: false, tools: [], exempt: [] })).toEqual({});
  });
});
