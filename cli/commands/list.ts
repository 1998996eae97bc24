import { runStatusSchema, type RunStatus } from '../../contracts';
import { listRuns, type RunListEntry } from '../../client/run-list';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';

function renderRows(entries: readonly RunListEntry[]): string[] {
  if (entries.length === 0) return ['no runs'];
  const rows = entries.map((e) => [e.workflowId, e.agent ?? '-', e.encrypted ? `${e.status} (encrypted, key id ${e.encrypted.keyId})` : e.status, e.startTime]);
  const header = ['RUN', 'AGENT', 'STATUS', 'STARTED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((r) => r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell)).join('  '));
}

/** `list`: runs by agent and status, through the AgentName / AgentStatus search attributes. */
export const listCommand: Command = {
  name: 'list',
  summary: 'list runs by agent and status (newest first)',
  positionals: [],
  options: {
    agent: { type: 'string', value: 'NAME', description: 'only runs of this agent' },
    status: { type: 'string', value: 'STATUS', description: `only runs in this status: ${runStatusSchema.unwrap().options.join(', ')}` },
    limit: { type: 'string', value: 'N', description: 'at most N runs (default 50)' },
  },
  examples: ['list --agent watchlist --status paused'],
  prepare(args) {
    const statusText = args.string('status');
    let status: RunStatus | undefined;
    if (statusText !== undefined) {
      const parsed = runStatusSchema.safeParse(statusText);
      if (!parsed.success) throw new UsageError(`--status: '${statusText}' is not a run status; use one of ${runStatusSchema.unwrap().options.join(', ')}`);
      status = parsed.data;
    }
    const agent = args.string('agent');
    const limit = args.int('limit') ?? 50;
    const filter = { ...(agent !== undefined ? { agent } : {}), ...(status !== undefined ? { status } : {}) };
    return async (ctx) => {
      const { entries } = await listRuns(ctx.agents, filter, { limit });
      ctx.out.emit(entries, () => renderRows(entries));
    };
  },
};
