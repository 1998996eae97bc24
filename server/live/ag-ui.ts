import type { FeedItem } from './feed-item';
import type { SseFrame } from './sse';
import { UiMessageProjection, type UiMessageChunk } from './ui-message-stream';

/** Something a run waits for, as AG-UI 1.0 `Interrupt` names it: here always an approval. */
export interface AgUiInterrupt {
  /** The tool call's id: a resume entry answers it by this id. */
  readonly id: string;
  readonly reason: 'tool_approval';
  readonly message: string;
  readonly toolCallId: string;
  /** JSON Schema of a resume entry's `payload`. */
  readonly responseSchema: Record<string, unknown>;
  /** `digest`: the approval digest of the call as it waits (a resume entry may echo it in its own `metadata`). */
  readonly metadata?: { readonly digest: string };
}

/** Why an AG-UI run ended (`RunFinishedOutcome` of AG-UI 1.0). */
export type AgUiOutcome = { type: 'success' } | { type: 'interrupt'; interrupts: AgUiInterrupt[] } | { type: 'cancelled' };

/**
 * The AG-UI 1.0 events this server sends (`@ag-ui/core`'s `EventType` values and fields), the
 * event shapes only: the protocol's packages are not a dependency of the server.
 */
export type AgUiEvent =
  | { type: 'RUN_STARTED'; threadId: string; runId: string }
  | { type: 'RUN_FINISHED'; threadId: string; runId: string; outcome: AgUiOutcome; result?: unknown }
  | { type: 'RUN_ERROR'; message: string; code?: string }
  | { type: 'STEP_STARTED'; stepName: string }
  | { type: 'STEP_FINISHED'; stepName: string }
  | { type: 'TEXT_MESSAGE_START'; messageId: string; role: 'assistant' }
  | { type: 'TEXT_MESSAGE_CONTENT'; messageId: string; delta: string }
  | { type: 'TEXT_MESSAGE_END'; messageId: string }
  | { type: 'TOOL_CALL_START'; toolCallId: string; toolCallName: string; parentMessageId?: string }
  | { type: 'TOOL_CALL_ARGS'; toolCallId: string; delta: string }
  | { type: 'TOOL_CALL_END'; toolCallId: string }
  | { type: 'TOOL_CALL_RESULT'; messageId: string; toolCallId: string; content: string; role: 'tool' }
  | { type: 'STATE_SNAPSHOT'; snapshot: AgUiState }
  | { type: 'CUSTOM'; name: string; value: unknown };

/**
 * The agent state of a thread: where the client's view of the run ends (the next request continues
 * after it); a session's thread also names the run it shows and the message that run answers.
 */
export interface AgUiState {
  readonly durableAgents: { readonly lastSeq: number; readonly [key: string]: unknown };
}

/** Options of an {@link AgUiProjection} over one run of a session's thread. */
export interface AgUiProjectionOptions {
  /** More of the thread's state, beside `lastSeq`: the run it shows (a session's thread has many). */
  readonly state?: Readonly<Record<string, unknown>>;
  /** Put before the ids of the messages it makes, unique to the run (its turns' ids recur in the thread's next run). */
  readonly idPrefix?: string;
}

/** What a resume entry's `payload` may be: a decision on the call, as `POST /api/runs/:id/decisions` takes it. */
export const resumePayloadJsonSchema: Record<string, unknown> = {
  type: 'object',
  properties: {
    decision: { enum: ['approve', 'reject', 'edit', 'replace'] },
    reason: { type: 'string', description: 'reject: why (the planner sees it)' },
    always: { type: 'boolean', description: 'approve: every later call of this tool in this run too' },
    args: { description: 'edit, replace: the arguments to run with' },
    name: { type: 'string', description: 'replace: the tool to call instead' },
  },
  required: ['decision'],
};

/** AG-UI events as SSE frames (`data: <event JSON>`), as `HttpAgent` reads them. */
export function agUiFrames(events: readonly AgUiEvent[]): SseFrame[] {
  return events.map((event) => ({ data: JSON.stringify(event) }));
}

/** The turn a feed item belongs to, when it says. */
function turnOf(item: FeedItem): number | undefined {
  if (item.type === 'delta') return item.delta.turn;
  if (item.type === 'event' && 'turn' in item.event && typeof item.event.turn === 'number') return item.event.turn;
  return undefined;
}

/**
 * Projects a run's feed onto AG-UI 1.0 events, one AG-UI run per stretch of the durable run (a
 * response ends where the run waits for approvals, or at its end). It reads the feed through the
 * {@link UiMessageProjection} (the same steps, text, tool calls, retried attempts and ordering of
 * deltas against events) and translates its parts:
 *
 * - a turn: `STEP_STARTED` / `STEP_FINISHED` (`stepName` "turn N");
 * - text (token deltas, the final answer): `TEXT_MESSAGE_START` / `_CONTENT` / `_END`;
 * - a call: `TOOL_CALL_START` (in the turn's assistant message) / `_ARGS` / `_END`, its result
 *   `TOOL_CALL_RESULT` with the result's JSON (bounded as in the UI stream), `{"error": …}` for a
 *   failed call, `{"rejected": true, "reason": …}` for a rejected one;
 * - every other run event: `CUSTOM` named by its type, the event as value; `reset-step` (a model
 *   call was retried), `reset` after a rewind (reload the thread), `end` with the run's status;
 * - the end of a response: `STATE_SNAPSHOT` `{ durableAgents: { lastSeq } }`, then `RUN_FINISHED`
 *   (outcome `interrupt` with one interrupt per pending approval, `success` with the final
 *   answer as result, `cancelled` for a killed run) or `RUN_ERROR` for a failed run.
 */
export class AgUiProjection {
  private readonly ui: UiMessageProjection;
  private step: string | undefined;
  private steps = 0;
  /** The assistant message of the open step: its text's, or one made for its calls. */
  private stepMessage: string | undefined;
  private text: string | undefined;
  /** Calls started and not ended in this response; true once arguments were sent. */
  private calls = new Map<string, boolean>();
  private readonly rejections = new Map<string, string | undefined>();
  private readonly names = new Map<string, string>();
  private readonly digests = new Map<string, string>();
  private result: unknown;
  private failure: { message: string; code: string } | undefined;

  constructor(
    private readonly threadId: string,
    private readonly runId: string,
    private readonly options: AgUiProjectionOptions = {},
  ) {
    this.ui = new UiMessageProjection(threadId);
  }

  start(): AgUiEvent[] {
    return [{ type: 'RUN_STARTED', threadId: this.threadId, runId: this.runId }];
  }

  /** The events of one feed item (the run's end closes its step; {@link finish} ends the AG-UI run). */
  item(item: FeedItem): AgUiEvent[] {
    if (item.type === 'event') {
      const event = item.event;
      if (event.type === 'approval_requested') {
        this.names.set(event.toolCallId, event.name);
        if (event.digest !== undefined) this.digests.set(event.toolCallId, event.digest);
      }
      if (event.type === 'final') this.result = event.response;
      if (event.type === 'run_failed') this.failure = { message: `${event.errorType}: ${event.message}`, code: event.errorType };
    }
    const turn = turnOf(item);
    return this.ui.item(item).flatMap((chunk) => this.chunk(chunk, turn));
  }

  /** After a catch-up (the items the client has were taken in silently): this response starts with nothing open. */
  continueAfterPause(): void {
    this.ui.continueAfterPause();
    this.step = undefined;
    this.stepMessage = undefined;
    this.text = undefined;
    this.calls = new Map();
  }

  /** Ends the AG-UI run where the durable run waits for the approvals `pending` (tool call ids). */
  pause(lastSeq: number, pending: readonly string[], state: Readonly<Record<string, unknown>> = {}): AgUiEvent[] {
    const interrupts = pending.map((id): AgUiInterrupt => {
      const name = this.names.get(id) ?? 'a tool';
      const digest = this.digests.get(id);
      return { id, reason: 'tool_approval', message: `Approve the call of ${name}?`, toolCallId: id, responseSchema: resumePayloadJsonSchema, ...(digest ? { metadata: { digest } } : {}) };
    });
    const closing = [...this.ui.pause().flatMap((chunk) => this.chunk(chunk, undefined)), ...this.closeAll(), this.state(lastSeq, state)];
    if (interrupts.length === 0) return [...closing, { type: 'RUN_FINISHED', threadId: this.threadId, runId: this.runId, outcome: { type: 'success' } }];
    return [...closing, { type: 'RUN_FINISHED', threadId: this.threadId, runId: this.runId, outcome: { type: 'interrupt', interrupts } }];
  }

  /** Ends the AG-UI run after the durable run's end (`status`: its terminal status). */
  finish(lastSeq: number, status: string): AgUiEvent[] {
    const closing = [...this.closeAll(), this.state(lastSeq)];
    if (this.failure) return [...closing, { type: 'RUN_ERROR', ...this.failure }];
    if (status === 'terminated') return [...closing, { type: 'RUN_FINISHED', threadId: this.threadId, runId: this.runId, outcome: { type: 'cancelled' } }];
    if (status !== 'completed') return [...closing, { type: 'RUN_ERROR', message: `the run ended ${status}`, code: status }];
    const result = this.result === undefined ? {} : { result: this.result };
    return [...closing, { type: 'RUN_FINISHED', threadId: this.threadId, runId: this.runId, outcome: { type: 'success' }, ...result }];
  }

  private state(lastSeq: number, more: Readonly<Record<string, unknown>> = {}): AgUiEvent {
    return { type: 'STATE_SNAPSHOT', snapshot: { durableAgents: { ...this.options.state, ...more, lastSeq } } };
  }

  /** The id of a message this projection makes. */
  private id(id: string): string {
    return `${this.options.idPrefix ?? ''}${id}`;
  }

  /** Closes what is open (AG-UI ends a run only with its messages, calls and steps closed). */
  private closeAll(): AgUiEvent[] {
    const events = [...this.closeText(), ...this.closeCalls()];
    if (this.step !== undefined) events.push({ type: 'STEP_FINISHED', stepName: this.step });
    this.step = undefined;
    this.stepMessage = undefined;
    return events;
  }

  private closeText(): AgUiEvent[] {
    if (this.text === undefined) return [];
    const messageId = this.text;
    this.text = undefined;
    return [{ type: 'TEXT_MESSAGE_END', messageId }];
  }

  /** Ends the calls still open (their arguments stopped short: a retried model call, the turn's end). */
  private closeCalls(): AgUiEvent[] {
    const open = [...this.calls.keys()];
    this.calls.clear();
    return open.map((toolCallId) => ({ type: 'TOOL_CALL_END', toolCallId }));
  }

  private endCall(toolCallId: string): AgUiEvent[] {
    if (!this.calls.delete(toolCallId)) return [];
    return [{ type: 'TOOL_CALL_END', toolCallId }];
  }

  private toolResult(toolCallId: string, content: unknown): AgUiEvent[] {
    return [...this.endCall(toolCallId), { type: 'TOOL_CALL_RESULT', messageId: this.id(`result-${toolCallId}`), toolCallId, content: JSON.stringify(content) ?? 'null', role: 'tool' }];
  }

  private chunk(chunk: UiMessageChunk, turn: number | undefined): AgUiEvent[] {
    switch (chunk.type) {
      case 'start':
      case 'finish':
      case 'message-metadata':
      case 'tool-approval-request':
      case 'error':
        // The run's start and end are the route's; interrupts come with the end of a response;
        // a failure ends the AG-UI run with RUN_ERROR.
        return [];
      case 'start-step':
        this.steps += 1;
        this.step = turn === undefined ? `step ${this.steps}` : `turn ${turn}`;
        this.stepMessage = undefined;
        return [{ type: 'STEP_STARTED', stepName: this.step }];
      case 'finish-step':
        return this.closeAll();
      case 'text-start':
        this.text = this.id(chunk.id);
        this.stepMessage ??= this.text;
        return [{ type: 'TEXT_MESSAGE_START', messageId: this.text, role: 'assistant' }];
      case 'text-delta':
        return this.text === this.id(chunk.id) ? [{ type: 'TEXT_MESSAGE_CONTENT', messageId: this.text, delta: chunk.delta }] : [];
      case 'text-end':
        return this.text === this.id(chunk.id) ? this.closeText() : [];
      case 'tool-input-start':
        this.calls.set(chunk.toolCallId, false);
        this.stepMessage ??= this.id(`${this.step ?? 'step'}-${chunk.toolCallId}`);
        return [{ type: 'TOOL_CALL_START', toolCallId: chunk.toolCallId, toolCallName: chunk.toolName, parentMessageId: this.stepMessage }];
      case 'tool-input-delta':
        if (!this.calls.has(chunk.toolCallId)) return [];
        this.calls.set(chunk.toolCallId, true);
        return [{ type: 'TOOL_CALL_ARGS', toolCallId: chunk.toolCallId, delta: chunk.inputTextDelta }];
      case 'tool-input-available': {
        // A call shown earlier whose input changed (an edited call) keeps what it showed: the
        // `approval_decided` event carries the edit.
        if (!this.calls.has(chunk.toolCallId)) return [];
        const streamed = this.calls.get(chunk.toolCallId);
        const args: AgUiEvent[] = streamed ? [] : [{ type: 'TOOL_CALL_ARGS', toolCallId: chunk.toolCallId, delta: JSON.stringify(chunk.input) ?? '{}' }];
        return [...args, ...this.endCall(chunk.toolCallId)];
      }
      case 'tool-approval-response':
        if (!chunk.approved) this.rejections.set(chunk.approvalId, chunk.reason);
        return [];
      case 'tool-output-available':
        return this.toolResult(chunk.toolCallId, chunk.output);
      case 'tool-output-error':
        return this.toolResult(chunk.toolCallId, { error: chunk.errorText });
      case 'tool-output-denied': {
        const reason = this.rejections.get(chunk.toolCallId);
        return this.toolResult(chunk.toolCallId, { rejected: true, ...(reason ? { reason } : {}) });
      }
      default: {
        // `data-<name>` parts: run events, and the stream's own signals.
        const name = chunk.type.slice('data-'.length);
        return [...(name === 'reset-step' ? this.closeCalls() : []), { type: 'CUSTOM', name, value: chunk.data }];
      }
    }
  }
}
