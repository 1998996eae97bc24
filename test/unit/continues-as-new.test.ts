import { continuesAsNew, type ContinuationPoint } from '../../workflows/run/continues-as-new';

/** The answer, and how often `continue-while-waiting` was asked for it (a marker, the first time in an older run). */
function decide(point: ContinuationPoint, hasContinueWhileWaiting: boolean): { continues: boolean; asked: number } {
  let asked = 0;
  const continues = continuesAsNew(point, () => {
    asked += 1;
    return hasContinueWhileWaiting;
  });
  return { continues, asked };
}

const boundary = (facts: Partial<Omit<Extract<ContinuationPoint, { at: 'boundary' }>, 'at'>>): ContinuationPoint => ({
  at: 'boundary',
  suggested: false,
  longHistory: false,
  manyMessages: false,
  ...facts,
});

describe('continuesAsNew: where a run continues as new', () => {
  it('at a boundary with a short history and few messages it goes on, without asking continue-while-waiting', () => {
    expect(decide(boundary({}), true)).toEqual({ continues: false, asked: 0 });
  });

  it('at a boundary Temporal suggests or whose history is long, every run continues, without asking', () => {
    expect(decide(boundary({ suggested: true, manyMessages: true }), false)).toEqual({ continues: true, asked: 0 });
    expect(decide(boundary({ longHistory: true, manyMessages: true }), false)).toEqual({ continues: true, asked: 0 });
  });

  it('at a boundary after many messages, only a run with continue-while-waiting continues, asked once', () => {
    expect(decide(boundary({ manyMessages: true }), true)).toEqual({ continues: true, asked: 1 });
    expect(decide(boundary({ manyMessages: true }), false)).toEqual({ continues: false, asked: 1 });
  });

  it('in a wait whose continuation is due, a run continues only with continue-while-waiting, asked once', () => {
    expect(decide({ at: 'wait' }, true)).toEqual({ continues: true, asked: 1 });
    expect(decide({ at: 'wait' }, false)).toEqual({ continues: false, asked: 1 });
  });
});
