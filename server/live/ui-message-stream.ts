import type { RunEvent } from '../../contracts';
import type { TokenDelta } from '../../contracts/deltas';
import { DeltaGate } from './delta-gate';
import type { FeedItem } from './feed-item';
import type { SseFrame } from './sse';

/**
 * One part of the AI SDK UI message stream (protocol v1, `x-vercel-ai-ui-message-stream: v1`),
 * as `UIMessageChunk` of the `ai` package (7.x) names them. Custom parts are `data-<name>`.
 */
export type UiMessageChunk =
  | { type: 'start'; messageId?: string }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string }
  | { type: 'tool-input-delta'; toolCallId: string; inputTextDelta: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'error'; errorText: string }
  | { type: 'message-metadata'; messageMetadata: unknown }
  | { type: 'finish' }
  | { type: `data-${string}`; id?: string; data: unknown; transient?: boolean };

/** The response header of the UI message stream protocol. */
export const uiMessageStreamHeaders = { 'x-vercel-ai-ui-message-stream': 'v1' } as const;

/** UI message chunks as SSE frames (`data: <chunk JSON>`). */
export function uiMessageFrames(chunks: readonly UiMessageChunk[]): SseFrame[] {
  return chunks.map((chunk) => ({ data: JSON.stringify(chunk) }));
}

/**
 * A successful call's output part: its result, or when the result is long the start of its JSON
 * (`{ resultPreview, resultCut: true, resultBytes }`), or else its size alone (`resultOmitted`
 * when the run did not keep it; an event of an older version carries no result).
 */
function toolOutput(event: Extract<RunEvent, { type: 'tool_result' }>): unknown {
  if (event.result !== undefined) return event.result;
  if (event.resultPreview !== undefined) return { resultPreview: event.resultPreview, ...(event.resultCut ? { resultCut: true } : {}), resultBytes: event.resultBytes };
  return { ...(event.resultOmitted ? { resultOmitted: true } : {}), resultBytes: event.resultBytes };
}

/** A tool call as the stream has shown it: in which step its part is, and the input sent. */
interface ShownCall {
  step: number;
  name: string;
  /** The input sent with `tool-input-available` (JSON), absent while only streamed. */
  input?: string;
  approvalShown?: boolean;
  denied?: boolean;
}

/**
 * Projects a run's feed onto the AI SDK UI message stream: one assistant message for the
 * run, one step per turn (`start-step` / `finish-step`), text from token deltas and the final
 * answer (`text-start` / `text-delta` / `text-end`, one text part per answer), tool calls
 * (`tool-input-*`, always before the call's approval request; results
 * `tool-output-available` / `tool-output-error`), approvals (`tool-approval-request`,
 * approval id = tool call id: answer with `POST /api/runs/:id/decisions`; the decision as
 * `tool-approval-response`, and a rejected call ends with `tool-output-denied`), and every
 * other run event as a `data-<event type>` part carrying the event.
 *
 * Deltas and events travel apart, so either may arrive first: a {@link DeltaGate} orders them
 * (the events decide), so an answer streamed by deltas and completed by the `final` event is
 * one text part.
 *
 * Parts outside the standard set: `data-reset-step` (a model call was retried: drop the
 * text and tool input streamed by its previous attempt; `data` names the activity and
 * attempt) and `data-reset` (a rewind replaced events from `fromSeq`; parts already sent
 * cannot be taken back, so a client should reload the run).
 */
export class UiMessageProjection {
  /** The turn of the open step, and the number of steps opened (a part lives in one). */
  private step: number | undefined;
  private steps = 0;
  private text: { id: string; turn: number; streamed: string } | undefined;
  private attempt: { activityId: string; attempt: number } | undefined;
  private calls = new Map<string, ShownCall>();
  private gate = new DeltaGate();
  /** Rejections of calls the stream had not shown (it started after their approval request), by call id. */
  private unseenRejections = new Map<string, string | undefined>();
  private finished = false;

  constructor(private readonly messageId?: string) {}

  /** The first parts. */
  start(): UiMessageChunk[] {
    return [{ type: 'start', ...(this.messageId ? { messageId: this.messageId } : {}) }];
  }

  /** The parts of one feed item. */
  item(item: FeedItem): UiMessageChunk[] {
    if (this.finished) return [];
    switch (item.type) {
      case 'event':
        return [...this.event(item.event), ...this.release()];
      case 'delta':
        this.gate.hold(item.delta);
        return this.release();
      case 'reset':
        return [...this.forget(), { type: 'data-reset', data: { epoch: item.epoch, fromSeq: item.fromSeq } }];
      case 'end':
        this.finished = true;
        this.gate.clear();
        return [...this.closeStep(), { type: 'data-end', data: { status: item.status } }, { type: 'finish' }];
    }
  }

  /**
   * After a catch-up (a chat continuing its message feeds the items the client already has to
   * {@link item} and drops the parts): the pause that ended the client's last response closed
   * its step.
   */
  continueAfterPause(): void {
    this.closeStep();
  }

  /**
   * Ends the response where the run waits for people (a chat's turn ends at its approval
   * requests: the client answers them in its next request, which continues the message).
   */
  pause(): UiMessageChunk[] {
    this.finished = true;
    return [...this.closeStep(), { type: 'finish' }];
  }

  /** A rewind: the run's turns and calls start over (their ids recur). */
  private forget(): UiMessageChunk[] {
    const parts = this.closeStep();
    this.attempt = undefined;
    this.calls = new Map();
    this.gate = new DeltaGate();
    this.unseenRejections = new Map();
    return parts;
  }

  /** Steps follow the turns forward only: a late event of an older turn lands in the open step. */
  private openStep(turn: number): UiMessageChunk[] {
    if (this.step !== undefined && turn <= this.step) return [];
    const parts = this.closeStep();
    this.step = turn;
    this.steps += 1;
    return [...parts, { type: 'start-step' }];
  }

  private closeText(): UiMessageChunk[] {
    if (!this.text) return [];
    const id = this.text.id;
    this.text = undefined;
    return [{ type: 'text-end', id }];
  }

  private closeStep(): UiMessageChunk[] {
    if (this.step === undefined) return [];
    const parts = this.closeText();
    this.step = undefined;
    return [...parts, { type: 'finish-step' }];
  }

  /** The parts of the deltas the events have caught up with. */
  private release(): UiMessageChunk[] {
    return this.gate.release().flatMap((delta) => this.delta(delta));
  }

  private delta(delta: TokenDelta): UiMessageChunk[] {
    const turn = delta.turn ?? this.gate.turn ?? 0;
    const parts: UiMessageChunk[] = [];
    if (this.attempt && this.attempt.activityId === delta.activityId && delta.attempt !== this.attempt.attempt) {
      if (delta.attempt < this.attempt.attempt) return [];
      parts.push(...this.closeText(), { type: 'data-reset-step', data: { activityId: delta.activityId, attempt: delta.attempt, turn } });
    }
    this.attempt = { activityId: delta.activityId, attempt: delta.attempt };
    parts.push(...this.openStep(turn));
    if (delta.kind === 'text') {
      if (!this.text) {
        this.text = { id: `text-${turn}-${delta.attempt}`, turn, streamed: '' };
        parts.push({ type: 'text-start', id: this.text.id });
      }
      this.text.streamed += delta.text;
      parts.push({ type: 'text-delta', id: this.text.id, delta: delta.text });
      return parts;
    }
    const toolCallId = delta.toolCallId ?? `${delta.activityId}-${delta.attempt}-${delta.callIndex ?? 0}`;
    let call = this.calls.get(toolCallId);
    if (call?.input !== undefined) return parts;
    if (!call) {
      if (!delta.toolName) return parts;
      call = { step: this.steps, name: delta.toolName };
      this.calls.set(toolCallId, call);
      parts.push({ type: 'tool-input-start', toolCallId, toolName: delta.toolName });
    }
    // The reader adds input only to a part of the open step; an older one keeps what it has.
    if (delta.text && call.step === this.steps) parts.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: delta.text });
    return parts;
  }

  /**
   * The call's part with its complete input: started if the stream has not shown it, updated
   * when the input changed (an edited call). A part of an older step is left as it is (the
   * reader would add a second part for the call).
   */
  private toolInput(toolCallId: string, name: string, args: unknown): UiMessageChunk[] {
    const input = JSON.stringify(args) ?? 'undefined';
    const call = this.calls.get(toolCallId);
    if (call && (call.step !== this.steps || (call.input === input && call.name === name))) return [];
    const parts: UiMessageChunk[] = call ? [] : [{ type: 'tool-input-start', toolCallId, toolName: name }];
    this.calls.set(toolCallId, { ...call, step: this.steps, name, input });
    // Input unknown (a call refused before it was shown): the started part takes the result as it is.
    if (args === undefined) return parts;
    return [...parts, { type: 'tool-input-available', toolCallId, toolName: name, input: args }];
  }

  private finalText(text: string): UiMessageChunk[] {
    const parts: UiMessageChunk[] = [];
    if (!this.text) {
      if (!text) return [];
      const id = `text-${this.step ?? 'final'}`;
      return [{ type: 'text-start', id }, { type: 'text-delta', id, delta: text }, { type: 'text-end', id }];
    }
    // The deltas streamed so far are a prefix of the answer: send the rest.
    if (text.startsWith(this.text.streamed) && text.length > this.text.streamed.length) {
      parts.push({ type: 'text-delta', id: this.text.id, delta: text.slice(this.text.streamed.length) });
    }
    return [...parts, ...this.closeText()];
  }

  private decided(event: Extract<RunEvent, { type: 'approval_decided' }>, data: UiMessageChunk): UiMessageChunk[] {
    const call = this.calls.get(event.toolCallId);
    const rejected = event.decision === 'reject';
    // The reader knows approvals by the call's part: a call not shown yet gets its denial with its result.
    if (!call) {
      if (rejected) this.unseenRejections.set(event.toolCallId, event.reason);
      return [data];
    }
    return [data, ...this.decision(event.toolCallId, call, !rejected, event.reason)];
  }

  /** The approval's answer on the call's part; a rejected call ends with its denial. */
  private decision(toolCallId: string, call: ShownCall, approved: boolean, reason: string | undefined): UiMessageChunk[] {
    const parts: UiMessageChunk[] = call.approvalShown ? [] : [{ type: 'tool-approval-request', approvalId: toolCallId, toolCallId }];
    call.approvalShown = true;
    parts.push({ type: 'tool-approval-response', approvalId: toolCallId, approved, ...(reason ? { reason } : {}) });
    if (!approved) {
      call.denied = true;
      parts.push({ type: 'tool-output-denied', toolCallId });
    }
    return parts;
  }

  private result(event: Extract<RunEvent, { type: 'tool_result' }>): UiMessageChunk[] {
    this.gate.reached(event.turn);
    this.gate.answer(event.turn, event.toolCallId);
    const call = this.calls.get(event.toolCallId);
    // A rejected call ended with its denial.
    if (call?.denied) return [];
    // A call refused before it was shown (e.g. blocked by policy): its part starts here, input unknown.
    const parts = [...this.openStep(event.turn), ...(call ? [] : this.toolInput(event.toolCallId, event.name, undefined))];
    const shown = this.calls.get(event.toolCallId) as ShownCall;
    if (this.unseenRejections.has(event.toolCallId)) return [...parts, ...this.decision(event.toolCallId, shown, false, this.unseenRejections.get(event.toolCallId))];
    if (event.status === 'ok') {
      parts.push({ type: 'tool-output-available', toolCallId: event.toolCallId, output: toolOutput(event) });
    } else {
      parts.push({ type: 'tool-output-error', toolCallId: event.toolCallId, errorText: event.error ? `${event.error.type}: ${event.error.message}` : event.status });
    }
    return parts;
  }

  private event(event: RunEvent): UiMessageChunk[] {
    // Progress, not part of the answer: handed to the client's onData, not kept in the message.
    const data: UiMessageChunk = { type: `data-${event.type}`, id: String(event.seq), data: event, transient: true };
    switch (event.type) {
      case 'plan':
        this.gate.plan(event.turn, (event.toolCalls ?? []).map((c) => c.toolCallId));
        return [...this.openStep(event.turn), ...(event.decision === 'tool_calls' ? this.closeText() : []), data];
      case 'tool_call':
        this.gate.call(event.turn, event.toolCallId);
        return [...this.openStep(event.turn), ...this.toolInput(event.toolCallId, event.name, event.args)];
      case 'early_call_discarded':
        this.gate.answer(event.turn, event.toolCallId);
        return [data];
      case 'approval_requested': {
        this.gate.reached(event.turn);
        const parts = [...this.openStep(event.turn), ...this.toolInput(event.toolCallId, event.name, event.args)];
        const call = this.calls.get(event.toolCallId);
        if (call) call.approvalShown = true;
        return [...parts, { type: 'tool-approval-request', approvalId: event.toolCallId, toolCallId: event.toolCallId }, data];
      }
      case 'approval_decided':
        return this.decided(event, data);
      case 'tool_result':
        return this.result(event);
      case 'final':
        return [...this.finalText(event.response.text), data];
      case 'run_failed':
        return [...this.closeText(), data, { type: 'error', errorText: `${event.errorType}: ${event.message}` }];
      default:
        return [data];
    }
  }
}
