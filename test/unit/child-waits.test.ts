import { ChildWaits, waitsForPeople } from '../../workflows/state/child-waits';

describe('waitsForPeople: what a run\'s time budget does not count', () => {
  const none = new Set<string>();

  it('a run that waits itself (paused, an approval, an answer) waits, whatever its calls do', () => {
    expect(waitsForPeople({ waitsItself: true, inFlight: ['work'], childrenWaiting: none })).toBe(true);
  });

  it('a run whose only call in flight is a child waiting for people waits', () => {
    expect(waitsForPeople({ waitsItself: false, inFlight: ['pay'], childrenWaiting: new Set(['pay']) })).toBe(true);
  });

  it('a run whose calls in flight are all children waiting for people waits', () => {
    expect(waitsForPeople({ waitsItself: false, inFlight: ['a', 'b'], childrenWaiting: new Set(['a', 'b']) })).toBe(true);
  });

  it('a call that works beside a waiting child makes the time work', () => {
    expect(waitsForPeople({ waitsItself: false, inFlight: ['pay', 'work'], childrenWaiting: new Set(['pay']) })).toBe(false);
  });

  it('a run with no call in flight works (a planner turn), even with a stale report', () => {
    expect(waitsForPeople({ waitsItself: false, inFlight: [], childrenWaiting: new Set(['pay']) })).toBe(false);
  });

  it('a child that works is work', () => {
    expect(waitsForPeople({ waitsItself: false, inFlight: ['pay'], childrenWaiting: none })).toBe(false);
  });
});

describe('ChildWaits', () => {
  const inFlight = (...ids: string[]) => new Map(ids.map((id) => [id, { dispatched: true }]));

  it('holds the run while its only call in flight is a waiting child, and lets go when it stops waiting', () => {
    const waits = new ChildWaits();
    expect(waits.note('pay', true)).toBe(true);
    expect(waits.holdRun(inFlight('pay'))).toBe(true);
    expect(waits.note('pay', false)).toBe(true);
    expect(waits.holdRun(inFlight('pay'))).toBe(false);
  });

  it('reports only changes: a repeated report changes nothing', () => {
    const waits = new ChildWaits();
    waits.note('pay', true);
    expect(waits.note('pay', true)).toBe(false);
    expect(waits.note('other', false)).toBe(false);
  });

  it('counts planned calls that are not dispatched (waiting for a slot or a dependency) as not in flight', () => {
    const waits = new ChildWaits();
    waits.note('pay', true);
    expect(waits.holdRun(new Map([['pay', { dispatched: true }], ['next', { dispatched: false }]]))).toBe(true);
  });

  it('forgets a child whose call ended', () => {
    const waits = new ChildWaits();
    waits.note('pay', true);
    expect(waits.ended('pay')).toBe(true);
    expect(waits.ended('pay')).toBe(false);
    expect(waits.holdRun(inFlight('pay'))).toBe(false);
  });
});
