import type { TokenDelta } from '../../contracts/deltas';
import { DeltaStore } from '../../server/live/delta-store';
import type { FeedItem } from '../../server/live/feed-item';
import { UiMessageProjection, type UiMessageChunk } from '../../server/live/ui-message-stream';
import { readWithAiSdk, sseBody, textParts, toolParts, type UiReadResult } from '../support/ai-ui-reader';
import { feedItems } from '../support/feed-items';

const { ev, delta, restart } = feedItems();

function project(items: FeedItem[]): UiMessageChunk[] {
  const p = new UiMessageProjection('w');
  return [...p.start(), ...items.flatMap((i) => p.item(i))];
}

describe('UI message stream projection', () => {
  beforeEach(() => {
    restart();
  });

  it('maps a tool turn with an approval and a final turn onto steps, tool parts and text', () => {
    const parts = project([
      ev({ type: 'run_started', agent: 'a', messageCount: 1 }),
      ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: [{ toolCallId: 'c1', name: 'add' }] }),
      ev({ type: 'approval_requested', turn: 0, toolCallId: 'c1', name: 'add', args: { a: 1 } }),
      ev({ type: 'approval_decided', toolCallId: 'c1', decision: 'approve' }),
      ev({ type: 'tool_call', turn: 0, toolCallId: 'c1', name: 'add', args: { a: 1 } }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'c1', name: 'add', status: 'ok', resultBytes: 3, durationMs: 1 }),
      ev({ type: 'plan', turn: 1, decision: 'final' }),
      ev({ type: 'final', response: { text: 'done' } }),
      { type: 'end', status: 'completed' },
    ]);
    expect(parts.map((p) => p.type)).toEqual([
      'start',
      'data-run_started',
      'start-step',
      'data-plan',
      'tool-input-start',
      'tool-input-available',
      'tool-approval-request',
      'data-approval_requested',
      'data-approval_decided',
      'tool-approval-response',
      'tool-output-available',
      'finish-step',
      'start-step',
      'data-plan',
      'text-start',
      'text-delta',
      'text-end',
      'data-final',
      'finish-step',
      'data-end',
      'finish',
    ]);
    expect(parts).toContainEqual({ type: 'tool-approval-request', approvalId: 'c1', toolCallId: 'c1' });
    expect(parts).toContainEqual({ type: 'tool-input-available', toolCallId: 'c1', toolName: 'add', input: { a: 1 } });
    expect(parts).toContainEqual({ type: 'tool-approval-response', approvalId: 'c1', approved: true });
  });

  it('streams text from deltas and completes it from the final answer', () => {
    const parts = project([delta('Hel'), delta('lo', { seq: 1 }), ev({ type: 'plan', turn: 1, decision: 'final' }), ev({ type: 'final', response: { text: 'Hello!' } })]);
    const text = parts.filter((p): p is Extract<UiMessageChunk, { type: 'text-delta' }> => p.type === 'text-delta').map((p) => p.delta);
    expect(text.join('')).toBe('Hello!');
    expect(parts.filter((p) => p.type === 'text-start')).toHaveLength(1);
    expect(parts.filter((p) => p.type === 'text-end')).toHaveLength(1);
  });

  it('marks a retried model call with data-reset-step and restarts its text', () => {
    const parts = project([delta('partial'), delta('Fresh', { attempt: 2 }), delta('stale', { seq: 1 })]);
    expect(parts.map((p) => p.type)).toEqual(['start', 'start-step', 'text-start', 'text-delta', 'text-end', 'data-reset-step', 'text-start', 'text-delta']);
    expect(parts).toContainEqual({ type: 'data-reset-step', data: { activityId: '2', attempt: 2, turn: 1 } });
  });

  it('streams tool-call arguments as tool input deltas', () => {
    const parts = project([
      delta('{"a"', { kind: 'tool-args', callIndex: 0, toolCallId: 'c9', toolName: 'add' }),
      delta(':1}', { kind: 'tool-args', callIndex: 0, toolCallId: 'c9', toolName: 'add', seq: 1 }),
      ev({ type: 'tool_call', turn: 1, toolCallId: 'c9', name: 'add', args: { a: 1 } }),
    ]);
    expect(parts.map((p) => p.type)).toEqual(['start', 'start-step', 'tool-input-start', 'tool-input-delta', 'tool-input-delta', 'tool-input-available']);
  });

  it('maps failed tools to tool-output-error, also a call refused before it was shown', () => {
    const parts = project([
      ev({ type: 'tool_call', turn: 0, toolCallId: 'x', name: 't', args: {} }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'x', name: 't', status: 'error', resultBytes: 0, durationMs: 1, error: { type: 'tool_error', message: 'boom' } }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'b', name: 't', status: 'error', resultBytes: 0, durationMs: 0, error: { type: 'blocked', message: 'no' } }),
    ]);
    expect(parts).toContainEqual({ type: 'tool-output-error', toolCallId: 'x', errorText: 'tool_error: boom' });
    const ofBlocked = parts.filter((p) => 'toolCallId' in p && p.toolCallId === 'b').map((p) => p.type);
    expect(ofBlocked).toEqual(['tool-input-start', 'tool-output-error']);
  });

  it('answers a rejected approval with tool-approval-response (not approved) and tool-output-denied, and sends nothing after it', () => {
    const parts = project([
      ev({ type: 'approval_requested', turn: 0, toolCallId: 'y', name: 't', args: { a: 1 } }),
      ev({ type: 'approval_decided', toolCallId: 'y', decision: 'reject', reason: 'no' }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'y', name: 't', status: 'error', resultBytes: 0, durationMs: 0, error: { type: 'rejected', message: 'rejected by a human: no' } }),
    ]);
    const ofCall = parts.filter((p) => ('toolCallId' in p && p.toolCallId === 'y') || ('approvalId' in p && p.approvalId === 'y'));
    expect(ofCall.map((p) => p.type)).toEqual(['tool-input-start', 'tool-input-available', 'tool-approval-request', 'tool-approval-response', 'tool-output-denied']);
    expect(parts).toContainEqual({ type: 'tool-approval-response', approvalId: 'y', approved: false, reason: 'no' });
  });

  it('drops deltas of a turn whose result landed, and holds those of the next turn until the turn before it settled', () => {
    const parts = project([
      ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: [{ toolCallId: 'c1', name: 'add' }] }),
      ev({ type: 'tool_call', turn: 0, toolCallId: 'c1', name: 'add', args: {} }),
      delta('Hel', { turn: 1 }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'c1', name: 'add', status: 'ok', resultBytes: 3, durationMs: 1 }),
      ev({ type: 'plan', turn: 1, decision: 'final' }),
      ev({ type: 'final', response: { text: 'Hello' } }),
      delta('lo', { turn: 1, seq: 1 }),
    ]);
    expect(parts.map((p) => p.type)).toEqual([
      'start',
      'start-step',
      'data-plan',
      'tool-input-start',
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'data-plan',
      'text-delta',
      'text-end',
      'data-final',
    ]);
  });
});

describe('delta store', () => {
  const d = (extra: Partial<TokenDelta>): TokenDelta => ({ workflowId: 'w', activityId: '1', attempt: 1, turn: 0, seq: 0, kind: 'text', text: 'x', at: 0, ...extra });

  it('keeps the current call only, drops older attempts, and forgets a turn once its result landed', () => {
    const store = new DeltaStore();
    expect(store.add(d({ text: 'a' }))).toBe('kept');
    expect(store.add(d({ attempt: 2, text: 'b' }))).toBe('kept');
    expect(store.add(d({ attempt: 1, text: 'c' }))).toBe('stale');
    expect(store.current('w').map((x) => x.text)).toEqual(['b']);
    store.turnLanded('w', 0);
    expect(store.current('w')).toEqual([]);
    expect(store.add(d({ attempt: 2, text: 'late' }))).toBe('late');
    expect(store.add(d({ activityId: '5', turn: 1, text: 'next' }))).toBe('kept');
    expect(store.current('w').map((x) => x.text)).toEqual(['next']);
  });

  it('is bounded per run and in runs', () => {
    const store = new DeltaStore({ maxPerRun: 3, maxRuns: 2 });
    for (let i = 0; i < 10; i++) store.add(d({ seq: i }));
    expect(store.current('w')).toHaveLength(3);
    store.add(d({ workflowId: 'v' }));
    store.add(d({ workflowId: 'u' }));
    expect(store.size).toBe(2);
    expect(store.current('w')).toEqual([]);
  });
});

describe('UI message stream read by the AI SDK (readUIMessageStream)', () => {
  type Decision = 'approve' | 'reject' | 'edit';
  const name = 'add_to_watchlist';
  const args = { symbols: ['AAPL'] };
  const edited = { symbols: ['MSFT'] };
  const answer = 'AAPL is on your watchlist now.';

  /** The events of a run whose one call waits for a decision, in the order the workflow records them. */
  function approvalRun(toolCallId: string, decision: Decision): FeedItem[] {
    restart();
    const decided =
      decision === 'reject'
        ? ev({ type: 'approval_decided', toolCallId, decision: 'reject', reason: 'not now' })
        : decision === 'edit'
          ? ev({ type: 'approval_decided', toolCallId, decision: 'edit', original: { name, args }, updated: { name, args: edited } })
          : ev({ type: 'approval_decided', toolCallId, decision: 'approve' });
    const result =
      decision === 'reject'
        ? ev({ type: 'tool_result', turn: 0, toolCallId, name, status: 'error', resultBytes: 0, durationMs: 0, error: { type: 'rejected', message: 'rejected by a human: not now' } })
        : ev({ type: 'tool_result', turn: 0, toolCallId, name, status: 'ok', resultBytes: 40, durationMs: 3 });
    return [
      ev({ type: 'run_started', agent: 'watchlist', messageCount: 1 }),
      ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: [{ toolCallId, name }] }),
      ev({ type: 'approval_requested', turn: 0, toolCallId, name, args }),
      ev({ type: 'status_changed', from: 'running', to: 'awaiting' }),
      decided,
      ev({ type: 'status_changed', from: 'awaiting', to: 'running' }),
      ...(decision === 'reject' ? [] : [ev({ type: 'tool_call', turn: 0, toolCallId, name, args: decision === 'edit' ? edited : args })]),
      result,
      ev({ type: 'plan', turn: 1, decision: 'final' }),
      ev({ type: 'final', response: { text: answer } }),
      ev({ type: 'status_changed', from: 'running', to: 'completed' }),
      { type: 'end', status: 'completed' },
    ];
  }

  /** The deltas of a model-planned run: the call's arguments (turn 0), then the answer (turn 1). */
  function modelDeltas(toolCallId: string): FeedItem[] {
    const call = { kind: 'tool-args' as const, activityId: '1', turn: 0, callIndex: 0, toolCallId, toolName: name };
    const pieces = ['AAPL is ', 'on your ', 'watchlist ', 'now.'];
    return [
      delta('{"symbols":', { ...call, seq: 0 }),
      delta('["AAPL"]}', { ...call, seq: 1 }),
      ...pieces.map((text, i) => delta(text, { activityId: '2', turn: 1, seq: i })),
    ];
  }

  /** A seeded generator, so a failing order can be replayed. */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  /**
   * Ways the two channels can arrive: each keeps its own order (events by seq, deltas as
   * published), but either may run ahead of the other. `end` stays last (the feed stops there).
   */
  function arrivals(events: FeedItem[], deltas: FeedItem[], randomOrders = 30): FeedItem[][] {
    const body = events.slice(0, -1);
    const end = events.at(-1) as FeedItem;
    const orders: FeedItem[][] = [];
    for (let at = 0; at <= body.length; at++) orders.push([...body.slice(0, at), ...deltas, ...body.slice(at), end]);
    const next = random(34);
    for (let n = 0; n < randomOrders; n++) {
      const merged: FeedItem[] = [];
      let e = 0;
      let d = 0;
      while (e < body.length || d < deltas.length) {
        if (d < deltas.length && (e >= body.length || next() < 0.5)) merged.push(deltas[d++] as FeedItem);
        else merged.push(body[e++] as FeedItem);
      }
      orders.push([...merged, end]);
    }
    return orders;
  }

  async function read(orders: FeedItem[][]): Promise<UiReadResult[]> {
    return readWithAiSdk(orders.map((items) => ({ body: sseBody(project(items)) }))).results;
  }

  it('introduces each call before its approval request when no deltas showed it (scripted and rule planners, models without deltas)', async () => {
    const decisions: Decision[] = ['approve', 'reject', 'edit'];
    const results = await read(decisions.map((d) => approvalRun('call_0_0', d)));
    for (const result of results) {
      expect(result.errors).toEqual([]);
      const [part, ...others] = toolParts(result);
      expect(others).toEqual([]);
      expect(part).toMatchObject({ type: `tool-${name}`, toolCallId: 'call_0_0', approval: { id: 'call_0_0' } });
      const types = result.chunks.map((c) => c.type);
      expect(types.indexOf('tool-input-available')).toBeLessThan(types.indexOf('tool-approval-request'));
    }
  });

  it('sends one text part per answer, whatever the order in which deltas and events arrive', async () => {
    const orders = arrivals(approvalRun('w1', 'approve'), modelDeltas('w1'));
    const results = await read(orders);
    results.forEach((result, i) => {
      const where = `arrival order ${i}: ${orders[i]?.map((item) => (item.type === 'event' ? item.event.type : item.type === 'delta' ? `delta(${item.delta.turn})` : item.type)).join(' ')}`;
      expect({ where, errors: result.errors }).toEqual({ where, errors: [] });
      expect({ where, text: textParts(result).map((p) => p.text) }).toEqual({ where, text: [answer] });
      expect({ where, tools: toolParts(result).map((p) => [p.toolCallId, p.state]) }).toEqual({ where, tools: [['w1', 'output-available']] });
    });
  });

  it('ends a rejected call with the standard denial (approval not approved) and nothing after it', async () => {
    const scripted = approvalRun('call_0_0', 'reject');
    const orders = [scripted, ...arrivals(approvalRun('w1', 'reject'), modelDeltas('w1'), 10)];
    const results = await read(orders);
    results.forEach((result, i) => {
      const id = i === 0 ? 'call_0_0' : 'w1';
      expect(result.errors).toEqual([]);
      expect(toolParts(result)).toEqual([expect.objectContaining({ toolCallId: id, state: 'output-denied', approval: expect.objectContaining({ id, approved: false, reason: 'not now' }) })]);
      const ofCall = result.chunks.filter((c) => c.toolCallId === id || c.approvalId === id).map((c) => c.type);
      expect(ofCall.at(-1)).toBe('tool-output-denied');
      expect(ofCall).not.toContain('tool-output-error');
      expect(textParts(result).map((p) => p.text)).toEqual([answer]);
    });
  });

  it('reads a call refused before it was shown, and calls that recur after a rewind', async () => {
    const refused = [
      ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: [{ toolCallId: 'b', name }] }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'b', name, status: 'error', resultBytes: 0, durationMs: 0, error: { type: 'blocked', message: 'blocked by policy' } }),
      { type: 'end', status: 'completed' } as FeedItem,
    ];
    const rewound = approvalRun('call_0_0', 'approve');
    const results = await read([refused, [...rewound.slice(0, -1), { type: 'reset', epoch: 'e2', fromSeq: 2 }, ...approvalRun('call_0_0', 'reject').slice(1)]]);
    expect(results.map((r) => r.errors)).toEqual([[], []]);
    expect(toolParts(results[0] as UiReadResult)).toEqual([expect.objectContaining({ toolCallId: 'b', state: 'output-error' })]);
    // Call ids (and so approval ids) recur after a rewind: the new call has a part of its own.
    expect(toolParts(results[1] as UiReadResult)).toHaveLength(2);
    expect(toolParts(results[1] as UiReadResult).at(-1)?.state).toBe('output-denied');
  });

  it('shows an edited call with the arguments it ran with, approved', async () => {
    const results = await read([approvalRun('call_0_0', 'edit'), ...arrivals(approvalRun('w1', 'edit'), modelDeltas('w1'), 10)]);
    for (const result of results) {
      expect(result.errors).toEqual([]);
      expect(toolParts(result)).toEqual([expect.objectContaining({ state: 'output-available', input: edited, approval: expect.objectContaining({ approved: true }) })]);
      expect(textParts(result).map((p) => p.text)).toEqual([answer]);
    }
  });
});
