import type { RunEvent } from '../../contracts';
import type { TokenDelta } from '../../contracts/deltas';
import type { FeedItem } from './feed-item';

/**
 * One part of the AI SDK UI message stream (protocol v1, `x-vercel-ai-ui-message-stream: v1`),
 * as `UIMessageChunk` of the `ai` package names them. Custom parts are `data-<name>`.
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
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'error'; errorText: string }
  | { type: 'finish' }
  | { type: `data-${string}`; id?: string; data: unknown };

/**
 * Projects a run's feed onto the AI SDK UI message stream: one assistant message for the
 * run, one step per turn (`start-step` / `finish-step`), text from token deltas and the final
 * answer (`text-start` / `text-delta` / `text-end`), tool calls (`tool-input-*`, their
 * results `tool-output-available` / `tool-output-error`, a rejected call
 * `tool-output-denied`), approvals (`tool-approval-request`, approval id = tool call id:
 * answer with `POST /api/runs/:id/decisions`), and every other run event as a
 * `data-<event type>` part carrying the event.
 *
 * Parts outside the standard set: `data-reset-step` (a model call was retried: drop the
 * text and tool input streamed by its previous attempt; `data` names the activity and
 * attempt) and `data-reset` (a rewind replaced events from `fromSeq`; parts already sent
 * cannot be taken back, so a client should reload the run).
 */
export class UiMessageProjection {
  private step: number | undefined;
  private text: { id: string; turn: number; streamed: string } | undefined;
  private attempt: { activityId: string; attempt: number } | undefined;
  /** Tool calls whose input has started (by delta or event), and those already complete. */
  private readonly inputs = new Map<string, string>();
  private readonly available = new Set<string>();
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
        return this.event(item.event);
      case 'delta':
        return this.delta(item.delta);
      case 'reset':
        return [{ type: 'data-reset', data: { epoch: item.epoch, fromSeq: item.fromSeq } }];
      case 'end':
        this.finished = true;
        return [...this.closeStep(), { type: 'data-end', data: { status: item.status } }, { type: 'finish' }];
    }
  }

  private openStep(turn: number): UiMessageChunk[] {
    if (this.step === turn) return [];
    const parts = this.closeStep();
    this.step = turn;
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

  private delta(delta: TokenDelta): UiMessageChunk[] {
    const turn = delta.turn ?? this.step ?? 0;
    // A turn whose step is over (its deltas came late) has nothing more to show.
    if (this.step !== undefined && turn < this.step) return [];
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
    if (this.available.has(toolCallId)) return parts;
    if (!this.inputs.has(toolCallId)) {
      if (!delta.toolName) return parts;
      this.inputs.set(toolCallId, delta.toolName);
      parts.push({ type: 'tool-input-start', toolCallId, toolName: delta.toolName });
    }
    if (delta.text) parts.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: delta.text });
    return parts;
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

  private event(event: RunEvent): UiMessageChunk[] {
    const data: UiMessageChunk = { type: `data-${event.type}`, id: String(event.seq), data: event };
    switch (event.type) {
      case 'plan':
        return [...this.openStep(event.turn), ...(event.decision === 'tool_calls' ? this.closeText() : []), data];
      case 'tool_call': {
        const parts = this.openStep(event.turn);
        if (!this.inputs.has(event.toolCallId)) parts.push({ type: 'tool-input-start', toolCallId: event.toolCallId, toolName: event.name });
        this.inputs.set(event.toolCallId, event.name);
        this.available.add(event.toolCallId);
        return [...parts, { type: 'tool-input-available', toolCallId: event.toolCallId, toolName: event.name, input: event.args }];
      }
      case 'approval_requested':
        return [...this.openStep(event.turn), { type: 'tool-approval-request', approvalId: event.toolCallId, toolCallId: event.toolCallId }, data];
      case 'approval_decided':
        return event.decision === 'reject' ? [data, { type: 'tool-output-denied', toolCallId: event.toolCallId }] : [data];
      case 'tool_result': {
        const parts = this.openStep(event.turn);
        if (event.status === 'ok') {
          parts.push({ type: 'tool-output-available', toolCallId: event.toolCallId, output: { status: 'ok', resultBytes: event.resultBytes, ...(event.resultOmitted ? { resultOmitted: true } : {}) } });
        } else {
          parts.push({ type: 'tool-output-error', toolCallId: event.toolCallId, errorText: event.error ? `${event.error.type}: ${event.error.message}` : event.status });
        }
        return parts;
      }
      case 'final':
        return [...this.finalText(event.response.text), data];
      case 'run_failed':
        return [...this.closeText(), data, { type: 'error', errorText: `${event.errorType}: ${event.message}` }];
      default:
        return [data];
    }
  }
}
