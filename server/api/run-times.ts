import type { AgentClient } from '../../client/agent-client';

/**
 * When a run's latest execution started and closed, from the server's record of it (a describe:
 * free for the run, and needing no worker). Empty when it cannot be described.
 */
export async function runTimes(agents: AgentClient, workflowId: string): Promise<{ startTime?: string; closeTime?: string }> {
  const described = await agents.client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
  return {
    ...(described?.startTime ? { startTime: described.startTime.toISOString() } : {}),
    ...(described?.closeTime ? { closeTime: described.closeTime.toISOString() } : {}),
  };
}
