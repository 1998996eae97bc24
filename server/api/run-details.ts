import type { AgentClient } from '../../client/agent-client';
import type { RunSummary } from './schemas';

/** Status queries of one listing in flight at once. */
const concurrency = 8;
/** A run that does not answer this fast is listed without its figures. */
const detailTimeoutMs = 2_000;

async function detailsOf(agents: AgentClient, run: RunSummary): Promise<RunSummary> {
  try {
    if (run.temporalStatus === 'RUNNING') {
      const status = await agents.status(run.workflowId, { timeoutMs: detailTimeoutMs });
      return { ...run, turn: status.turn, iterations: status.iteration, cost: status.cost };
    }
    if (run.temporalStatus === 'COMPLETED') {
      // The close event only: cheap, and no worker needed.
      const result = await agents.result(run.workflowId);
      return { ...run, iterations: result.iterations, cost: result.cost };
    }
  } catch {
    // No worker answered in time, or the run is of an older execution: list it without figures.
  }
  return run;
}

/**
 * Adds each run's turn, iterations and cost (budget used against each cap): from the status
 * query while it runs, from its result once it has completed. At most {@link concurrency} calls
 * at once, each bounded, so a listing never waits long on runs whose workers are gone.
 */
export async function withRunDetails(agents: AgentClient, runs: readonly RunSummary[]): Promise<RunSummary[]> {
  const out: RunSummary[] = [...runs];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < runs.length; i = next++) out[i] = await detailsOf(agents, runs[i] as RunSummary);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, worker));
  return out;
}
