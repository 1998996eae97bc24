import type { z } from 'zod';
import type { DependencyOutput, JsonValue, RetryHint, ToolDefinition } from '../contracts';

/** Read/write access to the run's session state from inside a tool. Writes are applied by the workflow. */
export interface SessionStateAccess {
  get(key: string): JsonValue | undefined;
  /** Sets a key; `null` deletes it. The change is returned to the workflow with the result. */
  set(key: string, value: JsonValue | null): void;
}

/** What a tool implementation receives besides its arguments. Never shown to the model. */
export interface ToolContext {
  readonly runId: string;
  readonly agent: string;
  readonly toolCallId: string;
  readonly turn: number;
  /**
   * `<workflowId>/<epoch>/<callId>` (`<workflowId>/<callId>` in runs recorded without a log epoch):
   * the same on every attempt and across worker restarts, new after a rewind (a new epoch), so a
   * re-run or corrected call is never deduplicated into the effect of the call it replaces. Use it
   * to make side effects idempotent.
   */
  readonly idempotencyKey: string;
  /** 1 on the first attempt. */
  readonly attempt: number;
  readonly session: SessionStateAccess;
  /** Aborted when the call is cancelled (kill, time budget). Long tools should pass it on. */
  readonly signal: AbortSignal;
  /**
   * Outputs of the calls this call depends on (`dependsOn` of a dependency-aware plan), in that
   * order; empty otherwise. Each names the call it came from (the winning alternative, when the
   * named call lost its output path to one).
   */
  readonly dependencies: readonly DependencyOutput[];
  /** Records liveness (and progress details); required for long tools with a heartbeat timeout. */
  heartbeat(details?: JsonValue): void;
}

/** A tool definition bound to its implementation, registered on a worker. */
export interface ToolImplementation<I extends z.ZodType = z.ZodType> {
  readonly definition: ToolDefinition<I>;
  execute(args: z.output<I>, ctx: ToolContext): Promise<JsonValue> | JsonValue;
}

/**
 * Binds an implementation to a tool definition.
 *
 * @example
 * import { addNote } from './agent';
 * implementTool(addNote, async ({ text }, ctx) => {
 *   // save the note, keyed by ctx.idempotencyKey (the same on every retry of this call)
 *   return { saved: text };
 * });
 */
export function implementTool<I extends z.ZodType>(
  definition: ToolDefinition<I>,
  execute: (args: z.output<I>, ctx: ToolContext) => Promise<JsonValue> | JsonValue,
): ToolImplementation {
  return { definition, execute } as ToolImplementation;
}

/**
 * A failure a tool throws on purpose, with guidance for the planner. `retryable: false`
 * stops Temporal from retrying the call.
 *
 * @example
 * throw new ToolFailure('symbol not listed', { type: 'unknown_symbol', retryable: false,
 *   retryHint: { reason: 'invalid_arguments', message: 'use a listed ticker' } });
 */
export class ToolFailure extends Error {
  readonly type: string;
  readonly retryable: boolean;
  readonly retryHint: RetryHint | undefined;

  constructor(message: string, options: { type?: string; retryable?: boolean; retryHint?: RetryHint } = {}) {
    super(message);
    this.name = 'ToolFailure';
    this.type = options.type ?? 'tool_failure';
    this.retryable = options.retryable ?? true;
    this.retryHint = options.retryHint;
  }
}
