import type { WorkflowExecutionInfo } from '@temporalio/client';
import { agentNameSearchAttribute, agentStatusSearchAttribute, runStatusSchema, type RunStatus } from '../../../contracts';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';
import { listQuery } from '../list-query';

/** One row of `list`. */
export interface RunListEntry {
  readonly workflowId: string;
  readonly runId: string;
  readonly agent: string | null;
  /** AgentStatus as the run last reported it; the workflow status when the run set none. */
  readonly status: string;
  /** Temporal's execution status (RUNNING, COMPLETED, TERMINATED, …). */
  readonly workflowStatus: string;
  readonly startTime: string;
  readonly closeTime: string | null;
}

function memoAgent(info: WorkflowExecutionInfo): string | null {
  const agent = info.memo?.agent;
  return typeof agent === 'string' ? agent : null;
}

function toEntry(info: WorkflowExecutionInfo): RunListEntry {
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    agent: info.typedSearchAttributes.get(agentNameSearchAttribute) ?? memoAgent(info),
    status: info.typedSearchAttributes.get(agentStatusSearchAttribute) ?? info.status.name.toLowerCase(),
    workflowStatus: info.status.name,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
  };
}

function renderRows(entries: readonly RunListEntry[]): string[] {
  if (entries.length === 0) return ['no runs'];
  const rows = entries.map((e) => [e.workflowId, e.agent ?? '-', e.status, e.startTime]);
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
    status: { type: 'string', value: 'STATUS', description: `only runs in this status: ${runStatusSchema.options.join(', ')}` },
    limit: { type: 'string', value: 'N', description: 'at most N runs (default 50)' },
  },
  examples: ['list --agent watchlist --status paused'],
  prepare(args) {
    const statusText = args.string('status');
    let status: RunStatus | undefined;
    if (statusText !== undefined) {
      const parsed = runStatusSchema.safeParse(statusText);
      if (!parsed.success) throw new UsageError(`--status: '${statusText}' is not a run status; use one of ${runStatusSchema.options.join(', ')}`);
      status = parsed.data;
    }
    const agent = args.string('agent');
    const limit = args.int('limit') ?? 50;
    const query = listQuery({ ...(agent !== undefined ? { agent } : {}), ...(status !== undefined ? { status } : {}) });
    return async (ctx) => {
      const entries: RunListEntry[] = [];
      for await (const info of ctx.agents.client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
        entries.push(toEntry(info));
        if (entries.length >= limit) break;
      }
      ctx.out.emit(entries, () => renderRows(entries));
    };
  },
};
