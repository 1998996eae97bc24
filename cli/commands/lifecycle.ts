import { killRequestSchema, pauseRequestSchema, resumeRequestSchema, type KillRequest, type PauseRequest, type ResumeRequest } from '../../contracts';
import { validate, type OptionSpecs, type ParsedArgs } from '../args';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';
import { updateOrQueue } from '../queued';
import { renderPaused } from '../render';

const signalOption = {
  signal: { type: 'boolean', description: 'send the fire-and-forget signal instead of the update (no answer; bad input becomes a signal_rejected event)' },
} as const satisfies OptionSpecs;

const reasonFlags = { reason: '--reason' };

function reasonOf(args: ParsedArgs): { reason: string } | Record<string, never> {
  const reason = args.string('reason');
  return reason !== undefined ? { reason } : {};
}

/** `pause RUN`: pauses at the next safe point; the update answers once paused. */
export const pauseCommand: Command = {
  name: 'pause',
  summary: 'pause a run at its next safe point (waits until paused)',
  positionals: ['RUN'],
  options: {
    reason: { type: 'string', value: 'TEXT', description: 'why (recorded in the event log)' },
    timeout: { type: 'string', value: 'MS', description: 'how long to wait for the safe point (default 30000)' },
    ...signalOption,
  },
  examples: ['pause run-watchlist-k3j9x2ab --reason "check the quotes"', 'pause run-watchlist-k3j9x2ab --signal'],
  prepare(args) {
    const runId = args.positional(0);
    const signal = args.flag('signal');
    const timeoutMs = args.int('timeout');
    if (signal && timeoutMs !== undefined) throw new UsageError('--timeout applies to the update only; drop it or drop --signal');
    const request: PauseRequest = { ...reasonOf(args), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
    validate(pauseRequestSchema, request, { ...reasonFlags, timeoutMs: '--timeout' });
    return async (ctx) => {
      if (signal) {
        await ctx.agents.signal(runId, 'pause', request);
        ctx.out.emit({ workflowId: runId, signal: 'pause', sent: true }, () => `pause requested for ${runId} (signal)`);
        return;
      }
      // The signal has no timeout: it waits in the run's history for the next safe point.
      await updateOrQueue(ctx, runId, 'pause', () => ctx.agents.pause(runId, request), { name: 'pause', payload: reasonOf(args) }, (paused) =>
        ctx.out.emit(paused, () => renderPaused(runId, paused)),
      );
    };
  },
};

/** `resume RUN`: resumes a paused run; rejected when it is not paused. */
export const resumeCommand: Command = {
  name: 'resume',
  summary: 'resume a paused run',
  positionals: ['RUN'],
  options: {
    reason: { type: 'string', value: 'TEXT', description: 'why (recorded in the event log)' },
    ...signalOption,
  },
  examples: ['resume run-watchlist-k3j9x2ab --reason "looks fine"'],
  prepare(args) {
    const runId = args.positional(0);
    const request: ResumeRequest = reasonOf(args);
    validate(resumeRequestSchema, request, reasonFlags);
    const signal = args.flag('signal');
    return async (ctx) => {
      if (signal) {
        await ctx.agents.signal(runId, 'resume', request);
        ctx.out.emit({ workflowId: runId, signal: 'resume', sent: true }, () => `resume requested for ${runId} (signal)`);
        return;
      }
      await updateOrQueue(ctx, runId, 'resume', () => ctx.agents.resume(runId, request.reason), { name: 'resume', payload: request }, (report) =>
        ctx.out.emit(report, () => `resumed ${runId}: ${report.status}`),
      );
    };
  },
};

/** `kill RUN`: ends the run now, cancelling in-flight calls. */
export const killCommand: Command = {
  name: 'kill',
  summary: 'end a run now, cancelling its in-flight calls (waits until it has ended)',
  positionals: ['RUN'],
  options: {
    reason: { type: 'string', value: 'TEXT', description: 'why (recorded in the event log)' },
    ...signalOption,
  },
  examples: ['kill run-watchlist-k3j9x2ab --reason runaway'],
  prepare(args) {
    const runId = args.positional(0);
    const request: KillRequest = reasonOf(args);
    validate(killRequestSchema, request, reasonFlags);
    const signal = args.flag('signal');
    return async (ctx) => {
      if (signal) {
        await ctx.agents.signal(runId, 'kill', request);
        ctx.out.emit({ workflowId: runId, signal: 'kill', sent: true }, () => `kill requested for ${runId} (signal)`);
        return;
      }
      await updateOrQueue(ctx, runId, 'kill', () => ctx.agents.kill(runId, request), { name: 'kill', payload: request }, (report) =>
        ctx.out.emit(report, () => `killed ${runId}: ${report.status}`),
      );
    };
  },
};
