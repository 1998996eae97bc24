/**
 * Waiting for people across a tree of runs. A run does not charge to its time budget the time it
 * waits for people (paused, or an approval or an answer of its own); a sub-agent run tells its
 * parent when it starts or stops waiting so (signal `childWaiting`), and a parent whose calls in
 * flight are all children that wait for people waits for people too, and tells its own parent in
 * turn. So a delegated approval holds every budget above it, at any depth, and a parent whose
 * child works is still charged. One signal per change of a child's wait, nothing per tick.
 */
import { CancellationScope, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { childWaitingSignal } from '../../contracts/definitions';
import { childWaitingSchema } from '../../contracts/run';
import { describeIssues } from '../../contracts/json';
import { echoed } from '../../contracts/safe-text';
import { childWaitsHoldParents, isPatched } from '../versioning/patches';
import { childWorkflowId } from '../calls/sub-agent';
import type { RunState } from '../state/run-state';

/**
 * The signal handler of a parent run: a child that runs for one of its calls says it waits for
 * people, or no longer does. The report may come before the parent has seen the child start (its
 * first task can wait already), so it is checked against the call in flight and the child id the
 * call derives. A late report (the call has ended) is dropped; a report that names no child of
 * the run is refused as a `signal_rejected` event.
 */
export function acceptChildWaiting(run: RunState, raw: unknown): void {
  run.received.signals += 1;
  const parsed = childWaitingSchema().safeParse(raw ?? {});
  if (!parsed.success) {
    run.emit({ type: 'signal_rejected', signal: childWaitingSignal.name, reason: `invalid ${childWaitingSignal.name} payload: ${describeIssues(parsed.error)}` });
    return;
  }
  const { toolCallId, workflowId, waiting } = parsed.data;
  const child = run.children.get(toolCallId);
  const call = run.pending.get(toolCallId);
  const inFlight = call?.dispatched === true && isAgentTool(run, call.request.name) && (child === undefined || child.status === 'running');
  const ours = workflowId === childWorkflowId({ epoch: run.log.epoch ?? workflowInfo().runId }, toolCallId);
  if (!ours || !(inFlight || child)) {
    run.emit({ type: 'signal_rejected', signal: childWaitingSignal.name, reason: `call ${echoed(toolCallId)} has no sub-agent run ${echoed(workflowId)}` });
    return;
  }
  if (inFlight && run.childWaits.note(toolCallId, waiting)) run.refreshStatus();
}

function isAgentTool(run: RunState, name: string): boolean {
  return run.tools().some((tool) => tool.name === name && tool.subAgent !== undefined);
}

/**
 * What a sub-agent run does when it starts or stops waiting for people: it tells its parent
 * (since `child-waits-hold-parents`). Its end tells the parent by itself. The signal is sent
 * outside any call's scope: a wait that ends because its call was cancelled must still be told.
 */
export function tellParentOfWaits(run: RunState, parent: { readonly workflowId: string; readonly toolCallId: string }, workflowId: string): (waiting: boolean) => void {
  return (waiting) => {
    if (run.isTerminal || !isPatched(childWaitsHoldParents)) return;
    const payload = { toolCallId: parent.toolCallId, workflowId, waiting };
    // The parent may have ended meanwhile: nothing to tell then.
    CancellationScope.nonCancellable(() => getExternalWorkflowHandle(parent.workflowId).signal(childWaitingSignal, payload)).catch(() => undefined);
  };
}
