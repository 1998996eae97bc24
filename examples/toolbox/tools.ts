import { sleep as activitySleep } from '@temporalio/activity';
import { implementTool, ToolFailure, type ToolImplementation } from 'durable-agents/worker';
import { addTool, blobTool, echoTool, failTool, flakyTool, recordTool, sleepTool, stepTool, transferTool } from './agent';

/** Where the `record` tool writes its side effects; tests count them. */
export interface SideEffectSink {
  /** Records one execution of `label` under its idempotency key; returns how many times that key has been recorded. */
  record(idempotencyKey: string, label: string): Promise<number> | number;
}

/** An in-memory sink, for workers running inside a test process. */
export class MemorySideEffectSink implements SideEffectSink {
  readonly entries: { key: string; label: string }[] = [];

  record(key: string, label: string): number {
    this.entries.push({ key, label });
    return this.entries.filter((e) => e.key === key).length;
  }
}

/** Sleeps in heartbeating slices so cancellation and worker death are noticed quickly. */
async function heartbeatingSleep(ms: number, heartbeat: () => void): Promise<void> {
  let left = ms;
  while (left > 0) {
    heartbeat();
    const slice = Math.min(200, left);
    await activitySleep(slice);
    left -= slice;
  }
}

/**
 * Implementations of the toolbox tools.
 *
 * @param sink where `record` writes its side effects.
 */
export function toolboxImplementations(sink: SideEffectSink): ToolImplementation[] {
  return [
    implementTool(echoTool, ({ text }) => ({ text })),
    implementTool(addTool, ({ a, b }) => ({ sum: a + b })),
    implementTool(sleepTool, async ({ ms }, ctx) => {
      await heartbeatingSleep(ms, () => ctx.heartbeat());
      return { slept: ms };
    }),
    implementTool(failTool, ({ message, retryable }) => {
      throw new ToolFailure(message, { type: 'requested_failure', retryable });
    }),
    implementTool(flakyTool, ({ failAttempts }, ctx) => {
      if (ctx.attempt <= failAttempts) throw new Error(`transient failure on attempt ${ctx.attempt}`);
      return { succeededOnAttempt: ctx.attempt };
    }),
    implementTool(recordTool, async ({ label, delayMs }, ctx) => {
      await heartbeatingSleep(delayMs, () => ctx.heartbeat());
      const seen = await sink.record(ctx.idempotencyKey, label);
      return { label, seen };
    }),
    implementTool(blobTool, ({ bytes }) => ({ blob: 'x'.repeat(bytes) })),
    implementTool(transferTool, ({ to, amount }, ctx) => ({ to, amount, reference: ctx.idempotencyKey })),
    implementTool(stepTool, async ({ label, ms, fail }, ctx) => {
      await heartbeatingSleep(ms, () => ctx.heartbeat());
      if (fail) throw new ToolFailure(`step ${label} failed as asked`, { type: 'requested_failure', retryable: false });
      return { label, inputs: Object.fromEntries(ctx.dependencies.map((d) => [d.fromToolCallId, d.result ?? null])) };
    }),
  ];
}
