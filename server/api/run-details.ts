import type { AgentClient } from '../../client/agent-client';
import { runResultSchema, type RunResult } from '../../contracts';
import type { RunSummary } from './schemas';

/** Status queries of one listing in flight at once. */
const concurrency = 8;
/** A run that does not answer this fast is listed without its figures. */
const detailTimeoutMs = 2_000;
/** Results of completed executions kept (they never change; the dashboard lists every few seconds). */
const maxCachedResults = 2_000;

/**
 * Adds each run's turn, iterations and cost (budget used against each cap): from the status
 * query while it runs, from its result once it has completed. At most {@link concurrency} calls
 * at once, each bounded, so a listing never waits long on runs whose workers are gone. A
 * completed execution's result is read once per server and kept.
 */
export class RunDetails {
  private readonly results = new Map<string, RunResult>();

  constructor(private readonly agents: AgentClient) {}

  async add(runs: readonly RunSummary[]): Promise<RunSummary[]> {
    const out: RunSummary[] = [...runs];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < runs.length; i = next++) out[i] = await this.detailsOf(runs[i] as RunSummary);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, worker));
    return out;
  }

  private async detailsOf(run: RunSummary): Promise<RunSummary> {
    try {
      if (run.temporalStatus === 'RUNNING') {
        const status = await this.agents.status(run.workflowId, { timeoutMs: detailTimeoutMs });
        return { ...run, turn: status.turn, iterations: status.iteration, cost: status.cost };
      }
      if (run.temporalStatus === 'COMPLETED') {
        const result = await this.resultOf(run.workflowId, run.runId);
        return { ...run, iterations: result.iterations, cost: result.cost };
      }
    } catch {
      // No worker answered in time, or the result does not parse: list the run without figures.
    }
    return run;
  }

  /** The result of one execution (its close event only: cheap, and no worker needed). */
  private async resultOf(workflowId: string, runId: string): Promise<RunResult> {
    const key = `${workflowId}\n${runId}`;
    const cached = this.results.get(key);
    if (cached) return cached;
    const result = runResultSchema.parse(await this.agents.client.workflow.getHandle(workflowId, runId).result());
    if (this.results.size >= maxCachedResults) this.results.delete(this.results.keys().next().value as string);
    this.results.set(key, result);
    return result;
  }
}
