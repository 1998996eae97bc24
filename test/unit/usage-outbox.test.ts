import { UsageOutbox } from '../../workflows/run/usage-outbox';

const record = (tokens: number) => ({ workflowId: 'r', tokens, modelCalls: 1 });

describe('the usage records a run has not delivered yet', () => {
  it('sends a refused record again before the next, once, and carries what is left', () => {
    const outbox = new UsageOutbox();
    expect(outbox.take(record(1))).toEqual([record(1)]);
    outbox.refused(record(1));
    expect(outbox.pending).toEqual([record(1)]);
    expect(outbox.take(record(2))).toEqual([record(1), record(2)]);
    expect(outbox.pending).toEqual([]);
    outbox.refused(record(2));
    const next = new UsageOutbox(outbox.pending);
    expect(next.take()).toEqual([record(2)]);
    expect(next.take()).toEqual([]);
  });
});
