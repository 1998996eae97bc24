import { groupChains } from './chains';
import type { RecordedExecution } from './execution';
import { recordingOfChain, type Recording } from './recording';

/**
 * The runs to evaluate from the given executions: every run (chains of executions read as one),
 * with the recordings of its sub-agent runs attached to the calls that started them (matched by
 * the child workflow id its history records). A sub-agent run whose parent was given is part of
 * its parent's recording, not a run of its own; one whose parent was not given is evaluated on
 * its own.
 *
 * @throws RecordingError when a run that continued as new is missing an execution.
 */
export function assembleRuns(executions: readonly RecordedExecution[]): Recording[] {
  const runs = groupChains(executions).map(recordingOfChain);
  const byId = new Map<string, Recording>();
  for (const run of runs) if (!byId.has(run.workflowId)) byId.set(run.workflowId, run);
  // A child history is matched by the workflow id its parent's start of it records.
  const children = new Set(runs.flatMap((run) => run.children.flatMap((c) => byId.get(c.workflowId) ?? [])));
  const withChildren = (run: Recording): Recording => ({
    ...run,
    children: run.children.map((child) => {
      const recording = byId.get(child.workflowId);
      return recording ? { ...child, recording: withChildren(recording) } : child;
    }),
  });
  return runs.filter((run) => !children.has(run)).map(withChildren);
}
