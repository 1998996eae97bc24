import { formatEvent } from '../../client/format';
import type { Command } from '../command';
import { ExitCode, UsageError } from '../exit-codes';
import { readOrRecorded } from '../../client/no-worker-reads';
import { followEvents, printHistoryEntries, queryTimeoutMs, showingRecordedBecause } from '../follow';
import { renderHistoryStatus, renderResult, renderStatus } from '../render';

/** `status RUN`: the status query, or the run's history and memo when no worker answers. */
export const statusCommand: Command = {
  name: 'status',
  summary: "print a run's status, pending calls, controls, budget and worker version",
  details:
    `When no worker polls the run's task queue, or none answers within ${queryTimeoutMs / 1000} s (the run failed before it could answer),\n` +
    "prints what the run's history says instead: agent, status, turns, calls, failure or result\n" +
    '(--json: an object with "source": "history").',
  positionals: ['RUN'],
  options: {},
  examples: ['status run-watchlist-k3j9x2ab --json'],
  prepare(args) {
    const runId = args.positional(0);
    return async (ctx) => {
      await readOrRecorded(
        ctx.agents,
        runId,
        async () => {
          const [report, workerVersion] = await Promise.all([ctx.agents.status(runId, { timeoutMs: queryTimeoutMs }), ctx.agents.workerVersion(runId)]);
          ctx.out.emit({ ...report, workerVersion }, () => renderStatus(runId, report, workerVersion));
        },
        async (why) => {
          const report = await ctx.agents.statusFromHistory(runId);
          showingRecordedBecause(ctx, why);
          ctx.out.emit(report, () => renderHistoryStatus(report));
        },
      );
    };
  },
};

/** `result RUN`: waits for the run to end and prints its result. */
export const resultCommand: Command = {
  name: 'result',
  summary: 'wait for a run to end and print its result',
  positionals: ['RUN'],
  options: {
    'run-id': { type: 'string', value: 'ID', description: 'of this execution (default: the latest), e.g. a closed run whose id a later start reused' },
  },
  examples: ['result run-watchlist-k3j9x2ab', 'result run-watchlist-k3j9x2ab --run-id 0192e6c4-3f1a-7b2c-9d4e-5f6a7b8c9d0e'],
  prepare(args) {
    const runId = args.positional(0);
    const execution = args.string('run-id');
    return async (ctx) => {
      const result = await ctx.agents.result(runId, execution);
      ctx.out.emit(result, () => renderResult(result));
      // A killed run completes its workflow, but it did not succeed: scripts must see that.
      if (result.status !== 'completed') {
        ctx.progress?.(`agentctl: run ${runId} ended ${result.status}, not completed`);
        return ExitCode.failure;
      }
      return undefined;
    };
  },
};

/** `events RUN`: a page of the event log, or every event as it arrives with `--follow`. */
export const eventsCommand: Command = {
  name: 'events',
  summary: "print a run's events (--follow: as they arrive, until the run ends)",
  details:
    `When no worker polls the run's task queue, or none answers within ${queryTimeoutMs / 1000} s, prints the steps the run's history records instead\n` +
    '(lines "hEVENTID TIME KIND DETAIL"; --json: objects with "source": "history").',
  positionals: ['RUN'],
  options: {
    after: { type: 'string', value: 'SEQ', description: 'only events with seq > SEQ (default 0)' },
    limit: { type: 'string', value: 'N', description: 'at most N events (default 200 without --follow, 1000 max)' },
    follow: { type: 'boolean', description: 'keep printing events until the run ends (--json: one event per line)' },
  },
  examples: ['events run-watchlist-k3j9x2ab --follow', 'events run-watchlist-k3j9x2ab --after 12 --limit 5'],
  prepare(args) {
    const runId = args.positional(0);
    const after = args.int('after', 0) ?? 0;
    const limit = args.int('limit');
    const follow = args.flag('follow');
    if (!follow && limit !== undefined && limit > 1000) throw new UsageError('--limit must be at most 1000');
    return async (ctx) => {
      if (follow) {
        await followEvents(ctx, runId, after, limit);
        return;
      }
      await readOrRecorded(
        ctx.agents,
        runId,
        async () => {
          const page = await ctx.agents.events(runId, after, limit ?? 200, { timeoutMs: queryTimeoutMs });
          ctx.out.emit(page, () => page.events.map(formatEvent));
        },
        (why) => printHistoryEntries(ctx, runId, why),
      );
    };
  },
};
