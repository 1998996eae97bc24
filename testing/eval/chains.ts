import type { RecordedExecution } from './execution';
import { RecordingError } from './recording-error';

function next(of: RecordedExecution, among: readonly RecordedExecution[]): RecordedExecution | undefined {
  return among.find((e) => e.workflowId === of.workflowId && (e.continuedFrom === of.runId || (of.continuedAs !== undefined && e.runId === of.continuedAs)));
}

/**
 * Groups executions into runs: each run the chain of executions of one workflow id that
 * continued as new from each other, first to last, in the order their first executions were
 * given. A run's input is in its first execution and its result in its last, so a chain must be
 * whole.
 *
 * @throws RecordingError naming the history and the execution (run id) that is missing: the one
 *   a later execution continued from, or the one an execution continued as.
 */
export function groupChains(executions: readonly RecordedExecution[]): RecordedExecution[][] {
  const left = [...executions];
  const chains: RecordedExecution[][] = [];
  for (const first of executions.filter((e) => e.continuedFrom === undefined)) {
    const chain = [first];
    left.splice(left.indexOf(first), 1);
    for (let e = next(first, left); e; e = next(e, left)) {
      chain.push(e);
      left.splice(left.indexOf(e), 1);
    }
    const last = chain[chain.length - 1]!;
    if (last.ending === 'continued_as_new') {
      const missing = last.continuedAs ?? '(unknown)';
      throw new RecordingError(
        `${last.source} ended continued as new as run ${missing} of ${last.workflowId}, whose history is not given: give the histories of all the run's executions together (agentctl history export ${last.workflowId} --run-id ${missing})`,
      );
    }
    chains.push(chain);
  }
  const orphan = left[0];
  if (orphan) {
    const from = orphan.continuedFrom ?? '(unknown)';
    throw new RecordingError(
      `${orphan.source} is a later execution of ${orphan.workflowId}: it continued from run ${from}, whose history is not given, and the run's input is in its first execution (run ${orphan.firstRunId}). Give the histories of all the run's executions together (agentctl history export ${orphan.workflowId} --run-id ${from}, and so on back to the first; or all at once: agentctl history export ${orphan.workflowId} --all-executions --out DIR)`,
    );
  }
  return chains;
}
