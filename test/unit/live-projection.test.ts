import type { RunEvent } from '../../contracts';
import type { TokenDelta } from '../../contracts/deltas';
import { DeltaStore } from '../../server/live/delta-store';
import type { FeedItem } from '../../server/live/feed-item';
import { UiMessageProjection, type UiMessageChunk } from '../../server/live/ui-message-stream';

const at = '2026-01-01T00:00:00.000Z';
let seq = 0;
const ev = (e: Record<string, unknown>): FeedItem => ({ type: 'event', event: { seq: ++seq, at, ...e } as RunEvent });
const delta = (text: string, extra: Partial<TokenDelta> = {}): FeedItem => ({
  type: 'delta',
  delta: { workflowId: 'w', activityId: '2', attempt: 1, turn: 1, seq: 0, kind: 'text', text, at: 0, ...extra },
});

function project(items: FeedItem[]): UiMessageChunk[] {
  const p = new UiMessageProjection('w');
  return [...p.start(), ...items.flatMap((i) => p.item(i))];
}

describe('UI message stream projection', () => {
  beforeEach(() => {
    seq = 0;
  });

  it('maps a tool turn with an approval and a final turn onto steps, tool parts and text', () => {
    const parts = project([
      ev({ type: 'run_started', agent: 'a', messageCount: 1 }),
      ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: [{ toolCallId: 'c1', name: 'add' }] }),
      ev({ type: 'tool_call', turn: 0, toolCallId: 'c1', name: 'add', args: { a: 1 } }),
      ev({ type: 'approval_requested', turn: 0, toolCallId: 'c1', name: 'add', args: { a: 1 } }),
      ev({ type: 'approval_decided', toolCallId: 'c1', decision: 'approve' }),
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

  it('maps failed tools to tool-output-error and rejections to tool-output-denied', () => {
    const parts = project([
      ev({ type: 'tool_result', turn: 0, toolCallId: 'x', name: 't', status: 'error', resultBytes: 0, durationMs: 1, error: { type: 'tool_error', message: 'boom' } }),
      ev({ type: 'approval_decided', toolCallId: 'y', decision: 'reject' }),
    ]);
    expect(parts).toContainEqual({ type: 'tool-output-error', toolCallId: 'x', errorText: 'tool_error: boom' });
    expect(parts).toContainEqual({ type: 'tool-output-denied', toolCallId: 'y' });
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
