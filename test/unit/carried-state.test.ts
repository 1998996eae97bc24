import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { carriedRunStateSchema, runInputSchema } from '../../contracts';
import { scriptedAgent } from '../../examples/toolbox/agent';
import { carriedInputMaxBytes } from '../../workflows/state/carry';
import { RunState } from '../../workflows/state/run-state';
import { carriedStateOf, continuedInput } from '../../workflows/state/carried-state-of';
import { closedOutput } from '../../workflows/kernel/outputs';

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
    const again = carriedRunStateSchema.parse(JSON.parse(JSON.stringify(carriedStateOf(state))));
    expect(again.messages).toEqual(carriedRunStateSchema.parse(fixture).messages);
    expect(again.generation).toBe(2);
  });

  it('carries a turn open in a wait (tool calls, an await, an ended turn), and the run takes it once', () => {
    const state = new RunState(input, scriptedAgent, carriedRunStateSchema.parse(fixture));
    state.turn = 2;
    const [request] = state.planCalls([{ name: 'echo', args: { text: 'b' } }]);
    const ended = closedOutput({ toolCallId: 'a', name: 'echo', args: {}, turn: 2 }, 'rejected', 'no');
    const turns = [
      { kind: 'tool_calls' as const, requests: [request!], ended: [ended], waiting: [{ request: request!, requestedAt: '2026-11-26T10:00:00.000Z' }] },
      { kind: 'await' as const, awaitId: 'await_2', spec: { items: [{ kind: 'clarification' as const, id: 'city', question: 'Which city?' }], onTimeout: 'fail' as const }, answers: [{ kind: 'clarification' as const, itemId: 'city', answer: 'Lisbon' }] },
      { kind: 'turn_ended' as const, outputs: [ended] },
    ];
    for (const openTurn of turns) {
      const carried = carriedRunStateSchema.parse(JSON.parse(JSON.stringify(carriedStateOf(state, undefined, openTurn))));
      expect(carried.openTurn).toEqual(openTurn);
      const next = new RunState(input, scriptedAgent, carried);
      expect(next.takeOpenTurn()).toEqual(openTurn);
      expect(next.takeOpenTurn()).toBeUndefined();
    }
    const bad = carriedRunStateSchema.safeParse({ ...(fixture as object), openTurn: { kind: 'half_a_turn' } });
    expect(bad.error?.issues[0]?.path).toEqual(['openTurn', 'kind']);
  });

  it('rejects a state from an unknown version, naming the field', () => {
    const result = carriedRunStateSchema.safeParse({ ...(fixture as object), schemaVersion: 99 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['schemaVersion']);
  });
});

describe('transcript compaction', () => {
  const { compactTranscript } = jest.requireActual<typeof import('../../workflows/state/carry')>('../../workflows/state/carry');
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

describe('the carried state is bounded in bytes', () => {
  const result = 'r'.repeat(64 * 1024 - 20);
  const requestIds = (turn: number) => Array.from({ length: 16 }, (_, i) => `call_${turn}_${i}`);
  /** A run at its limits: 24 turns of 16 parallel calls, each with a result at the 64 KB budget. */
  function maximalRun(sessionBytes = 1_000): RunState {
    const state = new RunState(
      runInputSchema.parse({ agent: 'scripted', messages: [{ role: 'user', content: 't'.repeat(50_000) }] }),
      scriptedAgent,
      carriedRunStateSchema.parse(fixture),
    );
    state.sessionState.notes = 's'.repeat(sessionBytes);
    for (let turn = 1; turn <= 24; turn++) {
      state.turn = turn;
      const requests = state.planCalls(Array.from({ length: 16 }, (_, i) => ({ name: 'echo', args: { text: `a${i}`.repeat(500) } })));
      const outputs = requests.map((r) => state.record({ ...closedOutput(r, 'cancelled', 'x'), status: 'ok', error: undefined, result, resultBytes: result.length + 2 }));
      state.commit(outputs);
    }
    state.turn = 25;
    return state;
  }

  it('a maximal run carries a compacted state within the bound, with its task and its newest messages', () => {
    const state = maximalRun();
    expect(JSON.stringify({ ...state.input, continued: carriedStateOf(state) }).length).toBeGreaterThan(2 * 1024 * 1024);
    const next = continuedInput(state);
    expect(next.input).toBeDefined();
    expect(next.bytes).toBeLessThanOrEqual(carriedInputMaxBytes);
    expect(Buffer.byteLength(JSON.stringify(next.input))).toBe(next.bytes);
    const carried = carriedRunStateSchema.parse(next.input?.continued);
    // Nothing twice: the conversation and session state travel in the carried state only.
    expect(next.input?.messages).toHaveLength(1);
    expect(JSON.stringify(next.input?.messages).length).toBeLessThan(200);
    expect(next.input?.sessionState).toBeUndefined();
    expect(carried.sessionState).toEqual(state.sessionState);
    expect(carried.messages[0]).toEqual(state.messages[0]);
    // The newest turn is there, every call answered (results cut to fit).
    const lastTurn = carried.messages.slice(carried.messages.map((m) => m.role).lastIndexOf('assistant'));
    expect(lastTurn[0]).toEqual(state.messages.at(-17));
    expect(lastTurn.slice(1).map((m) => (m.role === 'tool' ? m.toolCallId : m.role))).toEqual(requestIds(24));
    expect(lastTurn[1]?.content).toContain('more characters compacted away');
    expect(carried.nextSeq).toBe(state.log.lastSeq + 1);
    // The restored run continues with the same turn and call ids.
    const restored = new RunState(runInputSchema.parse(next.input), scriptedAgent, carried);
    expect(restored.turn).toBe(25);
    expect(restored.callIds.has('call_24_15')).toBe(true);
  });

  it('a small run carries everything of its last turns', () => {
    const state = new RunState(input, scriptedAgent, carriedRunStateSchema.parse(fixture));
    const next = continuedInput(state);
    expect(carriedRunStateSchema.parse(next.input?.continued)).toEqual(carriedRunStateSchema.parse(JSON.parse(JSON.stringify(carriedStateOf(state)))));
  });

  it('a session state too large to carry is refused, with its size', () => {
    const next = continuedInput(maximalRun(carriedInputMaxBytes));
    expect(next.input).toBeUndefined();
    expect(next.bytes).toBeGreaterThan(carriedInputMaxBytes);
  });
});
