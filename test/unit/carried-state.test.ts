import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { carriedRunStateSchema, runInputSchema } from '../../contracts';
import { scriptedAgent } from '../../examples/toolbox/agent';
import { RunState } from '../../workflows/run-state';

const fixture = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'carried-run-state.v1.json'), 'utf8')) as unknown;
const input = runInputSchema.parse({ agent: 'scripted', messages: [{ role: 'user', content: 'hello' }] });

describe('carried run state (continue-as-new)', () => {
  it('a version 1 state, as written by an earlier release, still parses', () => {
    expect(carriedRunStateSchema.parse(fixture).schemaVersion).toBe(1);
  });

  it('a run restored from it has the same conversation, budgets and control state', () => {
    const state = new RunState(input, scriptedAgent, carriedRunStateSchema.parse(fixture));
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(state.turn).toBe(1);
    expect(state.sessionState).toEqual({ watchlist: ['AAPL'] });
    expect(state.control.blockReason('sleep')).toBe('maintenance');
    expect(state.control.queued.map((q) => q.intervention.kind)).toEqual(['inject_message']);
    expect(state.control.allocateId()).toBe(2);
    expect(state.human.alwaysApproved.has('echo')).toBe(true);
    expect(state.log.lastSeq).toBe(3);
    // Call ids already used are remembered, so new calls never reuse them.
    state.turn = 0;
    expect(state.planCalls([{ name: 'echo', args: { text: 'again' } }])[0]?.toolCallId).toBe('call_0_0#2');
  });

  it('a state round-trips through toCarried', () => {
    const state = new RunState(input, scriptedAgent, carriedRunStateSchema.parse(fixture));
    const again = carriedRunStateSchema.parse(JSON.parse(JSON.stringify(state.toCarried())));
    expect(again.messages).toEqual(carriedRunStateSchema.parse(fixture).messages);
    expect(again.generation).toBe(2);
  });

  it('rejects a state from an unknown version, naming the field', () => {
    const result = carriedRunStateSchema.safeParse({ ...(fixture as object), schemaVersion: 99 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['schemaVersion']);
  });
});

describe('transcript compaction', () => {
  const { compactTranscript } = jest.requireActual<typeof import('../../workflows/run-state')>('../../workflows/run-state');
  const turn = (i: number) => [
    { role: 'assistant' as const, toolCalls: [{ id: `c${i}`, name: 'echo', args: { text: 'x'.repeat(100) } }] },
    { role: 'tool' as const, toolCallId: `c${i}`, name: 'echo', content: 'y'.repeat(100) },
  ];
  const long = [{ role: 'user' as const, content: 'the task' }, ...Array.from({ length: 200 }, (_, i) => turn(i)).flat()];

  it('keeps a small transcript as it is', () => {
    expect(compactTranscript(long.slice(0, 5), 100_000)).toEqual({ messages: long.slice(0, 5), dropped: 0 });
  });

  it('keeps the task, notes the cut, and keeps the newest messages within the budget', () => {
    const { messages, dropped } = compactTranscript(long, 10_000);
    expect(messages[0]).toEqual({ role: 'user', content: 'the task' });
    expect(messages[1]).toMatchObject({ role: 'system', content: expect.stringContaining(`${dropped} earlier messages`) });
    expect(messages.at(-1)).toEqual(long.at(-1));
    expect(JSON.stringify(messages).length).toBeLessThanOrEqual(10_000);
    // Never starts with an orphaned tool result.
    expect(messages[2]?.role).toBe('assistant');
  });
});
