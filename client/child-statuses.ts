import type { Client } from '@temporalio/client';
import { agentStatusSearchAttribute, runStatusSchema, type RunStatus, type RunStatusReport } from '../contracts';

/**
 * The report with each running sub-agent run's own status (its AgentStatus, read from the
 * server, no worker needed): the parent only knows that the child runs, while a human may be
 * what it waits for. A child without the attribute (runs before 0.14.0) stays `running`.
 */
export async function withChildStatuses(client: Client, report: RunStatusReport): Promise<RunStatusReport> {
  const running = (report.children ?? []).filter((c) => c.status === 'running');
  if (running.length === 0) return report;
  const own = new Map<string, RunStatus>();
  await Promise.all(
    running.map(async (child) => {
      const reported = await client.workflow
        .getHandle(child.workflowId)
        .describe()
        .then((d) => (d.status.name === 'RUNNING' ? d.typedSearchAttributes.get(agentStatusSearchAttribute) : undefined), () => undefined);
      const parsed = runStatusSchema.safeParse(reported);
      if (parsed.success) own.set(child.workflowId, parsed.data);
    }),
  );
  return { ...report, children: (report.children ?? []).map((c) => ({ ...c, status: own.get(c.workflowId) ?? c.status })) };
}
