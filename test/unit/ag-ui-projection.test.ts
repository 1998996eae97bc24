import { verifyEvents } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { from } from 'rxjs';
import type { AgUiEvent } from '../../server/live/ag-ui';
import { agUiResponse } from '../../server/live/ag-ui-route';
import type { FeedItem } from '../../server/live/feed-item';
import { feedItems } from '../support/feed-items';

const { ev, delta, restart } = feedItems();

/** One response of the route over these items, as the client reads it: the AG-UI events sent until it stops. */
function respond(items: FeedItem[], options: { shownSeq?: number; answered?: string[]; waitingNow?: string[] } = {}): AgUiEvent[] {
  const response = agUiResponse({ threadId: 'w', runId: 'r', shownSeq: options.shownSeq ?? 0, answered: options.answered, waitingNow: options.waitingNow });
  const frames = [...(response.opening?.() ?? [])];
  for (const item of items) {
    frames.push(...response.render(item));
    if (response.stopAfter?.()) break;
  }
  return frames.map((frame) => JSON.parse(frame.data ?? '') as AgUiEvent);
}

/** Each event valid under @ag-ui/core 1.0's schema, and the sequence accepted by @ag-ui/client's verifier. */
async function expectValidRun(events: AgUiEvent[]): Promise<void> {
  for (const event of events) expect({ event, valid: EventSchema.safeParse(event).success }).toEqual({ event, valid: true });
  // @ag-ui/client has its own copy of rxjs; its operator takes any observable of the same shape.
  const source = from(events) as unknown as Parameters<ReturnType<typeof verifyEvents>>[0];
  const verified = new Promise<number>((resolve, reject) => {
    let count = 0;
    verifyEvents()(source).subscribe({ next: () => (count += 1), error: reject, complete: () => resolve(count) });
  });
  await expect(verified).resolves.toBe(events.length);
}

const summary = (events: AgUiEvent[]) => events.map((e) => (e.type === 'CUSTOM' ? `CUSTOM ${e.name}` : e.type === 'STEP_STARTED' ? `STEP_STARTED ${e.stepName}` : e.type));

describe('AG-UI projection', () => {
  beforeEach(() => {
    restart();
  });

  /** Two parallel calls that wait for approval, then one approved, one rejected, and the final answer. */
  const approvalRun = () => {
    const asked = [
      ev({ type: 'run_started', agent: 'a', messageCount: 1 }),
      ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: [{ toolCallId: 'a', name: 'echo' }, { toolCallId: 'b', name: 'step' }] }),
      ev({ type: 'approval_requested', turn: 0, toolCallId: 'a', name: 'echo', args: { text: 'hi' } }),
      ev({ type: 'approval_requested', turn: 0, toolCallId: 'b', name: 'step', args: { ms: 1 } }),
    ];
    const answered = [
      ev({ type: 'approval_decided', toolCallId: 'a', decision: 'approve' }),
      ev({ type: 'approval_decided', toolCallId: 'b', decision: 'reject', reason: 'not this one' }),
      ev({ type: 'tool_call', turn: 0, toolCallId: 'a', name: 'echo', args: { text: 'hi' } }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'b', name: 'step', status: 'error', resultBytes: 0, durationMs: 0, error: { type: 'rejected', message: 'rejected by a human: not this one' } }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'a', name: 'echo', status: 'ok', resultBytes: 13, durationMs: 1, result: { text: 'hi' } }),
      ev({ type: 'plan', turn: 1, decision: 'final' }),
      ev({ type: 'final', response: { text: 'done' } }),
      { type: 'end', status: 'completed' } as FeedItem,
    ];
    return { asked, answered };
  };

  it('ends a response where the run waits for approvals: one interrupt per approval, by tool call id, after the state with the last seq', async () => {
    const { asked, answered } = approvalRun();
    const events = respond([...asked, ...answered]);
    expect(summary(events)).toEqual([
      'RUN_STARTED',
      'CUSTOM run_started',
      'STEP_STARTED turn 0',
      'CUSTOM plan',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'CUSTOM approval_requested',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'CUSTOM approval_requested',
      'STEP_FINISHED',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    expect(events).toContainEqual({ type: 'TOOL_CALL_ARGS', toolCallId: 'a', delta: '{"text":"hi"}' });
    expect(events.at(-2)).toEqual({ type: 'STATE_SNAPSHOT', snapshot: { durableAgents: { lastSeq: 4 } } });
    const finished = events.at(-1);
    expect(finished).toMatchObject({ type: 'RUN_FINISHED', threadId: 'w', runId: 'r', outcome: { type: 'interrupt' } });
    const interrupts = finished?.type === 'RUN_FINISHED' && finished.outcome.type === 'interrupt' ? finished.outcome.interrupts : [];
    expect(interrupts.map((i) => [i.id, i.toolCallId, i.reason])).toEqual([
      ['a', 'a', 'tool_approval'],
      ['b', 'b', 'tool_approval'],
    ]);
    await expectValidRun(events);
  });

  it('continues after the last seq the client has: results (a rejection with its reason), the next turn\'s text, and success with the answer', async () => {
    const { asked, answered } = approvalRun();
    const events = respond([...asked, ...answered], { shownSeq: 4, answered: ['a', 'b'] });
    expect(summary(events)).toEqual([
      'RUN_STARTED',
      'CUSTOM approval_decided',
      'CUSTOM approval_decided',
      // The denial comes with the decision, before the turn's next events open its step again.
      'TOOL_CALL_RESULT',
      'STEP_STARTED turn 0',
      'TOOL_CALL_RESULT',
      'STEP_FINISHED',
      'STEP_STARTED turn 1',
      'CUSTOM plan',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'CUSTOM final',
      'STEP_FINISHED',
      'CUSTOM end',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    expect(events.filter((e) => e.type === 'TOOL_CALL_RESULT')).toEqual([
      { type: 'TOOL_CALL_RESULT', messageId: 'result-b', toolCallId: 'b', content: '{"rejected":true,"reason":"not this one"}', role: 'tool' },
      { type: 'TOOL_CALL_RESULT', messageId: 'result-a', toolCallId: 'a', content: '{"text":"hi"}', role: 'tool' },
    ]);
    expect(events.at(-2)).toEqual({ type: 'STATE_SNAPSHOT', snapshot: { durableAgents: { lastSeq: 11 } } });
    expect(events.at(-1)).toEqual({ type: 'RUN_FINISHED', threadId: 'w', runId: 'r', outcome: { type: 'success' }, result: { text: 'done' } });
    await expectValidRun(events);
  });

  it('answers a client asking again while the run still waits where its last response ended with the same interrupts at once', async () => {
    const { asked } = approvalRun();
    const events = respond(asked, { shownSeq: 4, waitingNow: ['b', 'a'] });
    expect(summary(events)).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT', 'RUN_FINISHED']);
    expect(events.at(-1)).toMatchObject({ outcome: { type: 'interrupt', interrupts: [{ id: 'a' }, { id: 'b' }] } });
    // Decided elsewhere since: the log goes on, so the response does too.
    expect(respond(asked, { shownSeq: 4, waitingNow: [] })).toHaveLength(1);
  });

  it('streams text from token deltas, completed by the final answer, as one message; tool arguments from deltas once', async () => {
    const events = respond([
      delta('{"a":', { turn: 0, kind: 'tool-args', toolCallId: 'c', toolName: 'add', callIndex: 0 }),
      ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: [{ toolCallId: 'c', name: 'add' }] }),
      ev({ type: 'tool_call', turn: 0, toolCallId: 'c', name: 'add', args: { a: 1 } }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'c', name: 'add', status: 'ok', resultBytes: 1, durationMs: 1, result: 2 }),
      delta('Hel'),
      delta('lo'),
      ev({ type: 'plan', turn: 1, decision: 'final' }),
      ev({ type: 'final', response: { text: 'Hello there' } }),
      { type: 'end', status: 'completed' },
    ]);
    expect(events.filter((e) => e.type === 'TOOL_CALL_ARGS')).toEqual([{ type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: '{"a":' }]);
    const text = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? e.delta : ''));
    expect(text.join('')).toBe('Hello there');
    expect(events.filter((e) => e.type === 'TEXT_MESSAGE_START')).toHaveLength(1);
    await expectValidRun(events);
  });

  it('puts a turn\'s calls in one assistant message, and bounds a long result as the UI stream does', async () => {
    const events = respond([
      ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: [{ toolCallId: 'x', name: 't' }, { toolCallId: 'y', name: 't' }] }),
      ev({ type: 'tool_call', turn: 0, toolCallId: 'x', name: 't', args: {} }),
      ev({ type: 'tool_call', turn: 0, toolCallId: 'y', name: 't', args: {} }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'x', name: 't', status: 'ok', resultBytes: 9_000, durationMs: 1, resultPreview: '"xxxx', resultCut: true }),
      ev({ type: 'tool_result', turn: 0, toolCallId: 'y', name: 't', status: 'error', resultBytes: 0, durationMs: 1, error: { type: 'tool_error', message: 'boom' } }),
    ]);
    const starts = events.filter((e) => e.type === 'TOOL_CALL_START');
    expect(new Set(starts.map((e) => (e.type === 'TOOL_CALL_START' ? e.parentMessageId : undefined))).size).toBe(1);
    expect(events.filter((e) => e.type === 'TOOL_CALL_RESULT').map((e) => (e.type === 'TOOL_CALL_RESULT' ? JSON.parse(e.content) : undefined))).toEqual([
      { resultPreview: '"xxxx', resultCut: true, resultBytes: 9_000 },
      { error: 'tool_error: boom' },
    ]);
  });

  it('ends a failed run with RUN_ERROR, a killed one as cancelled', async () => {
    const failed = respond([ev({ type: 'plan', turn: 0, decision: 'final' }), ev({ type: 'run_failed', errorType: 'model_error', message: 'no model' }), { type: 'end', status: 'failed' }]);
    expect(failed.at(-1)).toEqual({ type: 'RUN_ERROR', message: 'model_error: no model', code: 'model_error' });
    expect(summary(failed)).toContain('CUSTOM run_failed');
    await expectValidRun(failed);
    const killed = respond([ev({ type: 'run_started', agent: 'a', messageCount: 1 }), { type: 'end', status: 'terminated' }]);
    expect(killed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
    await expectValidRun(killed);
  });

  it('signals a rewind with a reset event after closing the open step, and a retried model call after closing its streamed call', async () => {
    const events = respond([
      ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: [{ toolCallId: 'c', name: 'add' }] }),
      { type: 'reset', epoch: 'e2', fromSeq: 1 },
      delta('{"a"', { turn: 0, kind: 'tool-args', toolCallId: 'c2', toolName: 'add', callIndex: 0 }),
      delta('{"b"', { turn: 0, attempt: 2, kind: 'tool-args', toolCallId: 'c3', toolName: 'add', callIndex: 0 }),
      ev({ type: 'plan', turn: 0, decision: 'final' }),
      ev({ type: 'final', response: { text: 'ok' } }),
      { type: 'end', status: 'completed' },
    ]);
    const reset = summary(events).indexOf('CUSTOM reset');
    expect(summary(events).slice(reset - 1, reset + 1)).toEqual(['STEP_FINISHED', 'CUSTOM reset']);
    expect(events).toContainEqual({ type: 'CUSTOM', name: 'reset', value: { epoch: 'e2', fromSeq: 1 } });
    const retried = summary(events).indexOf('CUSTOM reset-step');
    expect(events[retried - 1]).toEqual({ type: 'TOOL_CALL_END', toolCallId: 'c2' });
    await expectValidRun(events);
  });
});
