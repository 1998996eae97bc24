import { patched } from '@temporalio/workflow';
import { runContext, type BaselineWork } from '../kernel/run-context';
import { OutsideSupportWindowError, supportWindow } from './support-window';

/**
 * The versioning of the workflow code: the patches it still asks, the releases and the baseline
 * marker each release records, and the support window (which recorded runs this code replays).
 * How to add a patch and how to retire one: docs/internals/patches.md.
 *
 * Workflow code asks {@link isPatched}, never `patched()` directly: a run records one baseline
 * marker at its start, which stands for every patch of its release and the releases before.
 *
 * The rule since 1.0: a change that only saves work (fewer promises, fewer events) gets no patch
 * of its own; it rides on the next release's baseline, decided once per execution into a plain
 * value of the run ({@link baselineWork}). A change of behaviour a user can see gets a patch
 * ({@link isPatched}), asked at one place. Either id is listed in the `patches` of the release
 * that brings it.
 */

// ---- the patches still asked, by the release that brought them ----------------------------

/**
 * 1.0.0: session runs and sub-agent runs start with the memo (`agent`) and, when the starting
 * workflow has AgentName (so the namespace has the attributes), the AgentName search attribute
 * of a plain run, so they mirror their status into AgentStatus and every list, filter and
 * metric sees them. Runs recorded before started their children without them.
 */
export const childRunsListed = 'child-runs-listed';

/**
 * 1.0.0: the wait between a tool turn's last tool end and the task that records its outputs
 * (a rewind's reset re-records them at today's time; a workflow worker outage delays them) is
 * not charged to the time budget when it is a second or more. Asked only for such a wait, so
 * runs without one record no marker. Runs recorded before were charged it.
 */
export const budgetCountsWork = 'budget-counts-work';

/**
 * 1.0.0: a model call that still fails for an outage or rate limits after its attempts, and a
 * toolset listing whose MCP server is still unavailable after its attempts, wait for the
 * provider instead of failing the run (or going on without the toolset): the run logs
 * `model_waiting` / `mcp_waiting`, its status shows the wait, and the call is scheduled again
 * with a retry policy without an attempt limit whose schedule-to-close timeout is what is left
 * of the time budget. Asked only when such a failure comes back, so runs without an outage
 * record no marker.
 */
export const waitOutProviderOutages = 'wait-out-provider-outages';

/**
 * 1.0.0: a run input with a value nested deeper than 64 levels (`maxInputJsonDepth`) fails the
 * run with `invalid_input` at its start, and so does a new session's input (its state, history,
 * policy, confirmation or labels). Asked only for such an input, before its schemas. Runs
 * recorded before ran with it; sessions recorded before never asked it.
 */
export const boundedInputDepth = 'bounded-input-depth';

/**
 * 1.0.0, work saving (in the baseline, never a marker of its own): a run's first workflow task is
 * its turn 0 boundary, which the history reader finds by itself (history/checkpoints.ts), so the
 * run no longer marks it. When that task scheduled no activity of turn 0 (local tools, a planner
 * in workflow code, a first turn that waits), the mark was a memo change: an event and a
 * visibility write per run. Runs of older baselines keep marking it.
 */
export const firstTaskBeginsRun = 'first-task-begins-run';

/**
 * 0.5.0: on versioned workers, a session whose deployment has a new current version continues as
 * new onto it before its next run. Its old branch (not following) was taken only by sessions
 * recorded before 0.5.0, which are outside the support window: a session without the marker at
 * that point is refused ({@link refuseSessionWithoutFollowMarker}). Sessions record no baseline
 * before 1.0.0, so this marker is what tells them apart there.
 */
export const sessionsFollowNewVersions = 'sessions-follow-new-versions';

/**
 * 1.0.0: a run continues as new once it has accepted many updates or signals, also in the
 * middle of a turn that waits for people (approvals, an await), carrying the open turn.
 */
export const continueWhileWaiting = 'continue-while-waiting';

/**
 * 1.0.0, work only in the baseline: a planner's model calls log a `model_usage` event (tokens,
 * cost). Runs of earlier releases log none, so their events keep their seqs when they replay.
 */
export const modelUsageEvents = 'model-usage-events';

/**
 * 1.0.0: a sub-agent run tells its parent (signal `childWaiting`) when it starts or stops waiting
 * for people (an approval, an answer, a pause, or a run below it that waits so), and the parent
 * does not charge to its time budget the time in which every call it has in flight is such a
 * child: a delegated approval no longer dies with its parent's budget. Asked only by a sub-agent
 * run at such a change, so other runs record no marker. Runs recorded before never signalled, and
 * their parents charged the wait (and cancelled the child once the budget was spent).
 */
export const childWaitsHoldParents = 'child-waits-hold-parents';

/**
 * 1.0.0: a call whose tool reported its end a second or more before the task that records it (a
 * rewind's reset records it again, minutes or days later; a workflow worker outage delays it)
 * reports its duration up to that end, not up to the recording. Asked only for such a call, so
 * runs without one record no marker. Runs recorded before reported the wait as the tool's time.
 */
export const callDurationsCountWork = 'call-durations-count-work';

/**
 * 1.0.0, in the baseline (never a marker of its own): a run whose input asks for it
 * (`confirmation.notify`) starts the approval notifier's activity when a call starts to wait for a
 * decision, logs `approval_notified` when it is delivered, and cancels it when the call stops
 * waiting before then. Runs of earlier releases started none, whatever their input said.
 */
export const approvalNotices = 'approval-notices';

/**
 * 1.0.0, in the baseline (never a marker of its own): a sub-agent run starts with its parent's
 * confirmation (the tools it confirms, its approval rules as they stand, `notify`), so what the
 * parent's policy confirms or denies is confirmed or denied at every depth, and the parent's
 * later `setApprovalRules` is passed on to its open children (a signal each). Runs of earlier
 * releases start their children without it, and pass no rules down, for their whole life.
 */
export const subAgentsInheritConfirmation = 'sub-agents-inherit-confirmation';

/**
 * 1.0.0, in the baseline (never a marker of its own): a run or session with a tenant
 * (RunInput.tenant) starts its sub-agent and session runs with it: in their input, in their memo
 * and, when this workflow has AgentTenant itself (proof that the namespace has it), as their
 * AgentTenant search attribute. Runs and sessions of earlier releases had no tenant.
 */
export const tenantRuns = 'tenant-runs';

// ---- the releases -------------------------------------------------------------------------

/** A release whose runs this code replays, and what its baseline marker stands for. */
export interface Release {
  readonly release: string;
  /** The marker a run started on this release records first. */
  readonly baseline: string;
  /** The patches this release brought; its baseline stands for them and all older releases'. */
  readonly patches: readonly string[];
}

/**
 * Every release inside the support window, newest first. A new execution records the first
 * row's baseline and nothing else; replay finds the row whose baseline its history recorded. The
 * last row is the window's oldest release: everything that came before it is in the code
 * without a branch (its patches were retired, see docs/internals/patches.md).
 */
export const releases: readonly Release[] = [
  // sessions-follow-new-versions came in 0.5.0; sessions record a baseline from 1.0.0 on, so it is first in this one.
  { release: '1.0.0', baseline: 'baseline-1.0.0', patches: [childRunsListed, budgetCountsWork, waitOutProviderOutages, boundedInputDepth, sessionsFollowNewVersions, firstTaskBeginsRun, continueWhileWaiting, modelUsageEvents, childWaitsHoldParents, callDurationsCountWork, approvalNotices, subAgentsInheritConfirmation, tenantRuns] },
  { release: supportWindow.oldest, baseline: 'baseline-0.13.0', patches: [] },
];

/**
 * The baselines of releases the window no longer covers, newest first (retired in 1.0.0, with
 * the work-saving patches only their runs asked: budget-watch-on-changes, flat-run-chain,
 * one-boundary-per-task, parallel-calls-join, light-call-graphs). Asked only on the replay of a
 * run that recorded none of the window's, to name the release that started it.
 */
const retiredBaselines: readonly string[] = ['baseline-0.12.0', 'baseline-0.11.0', 'baseline-0.10.0', 'baseline-0.9.0'];

/** The patches the baseline of `releases[index]` stands for: its own and every older release's. */
function patchesFrom(index: number): ReadonlySet<string> {
  return new Set(releases.slice(index).flatMap((r) => r.patches));
}

/** The baseline markers, newest first, with the patches each stands for. */
const baselines: readonly (readonly [id: string, patches: ReadonlySet<string>])[] = releases.map((r, i) => [r.baseline, patchesFrom(i)]);

/**
 * Decides, once at the start of an execution, which baseline it runs with: the newest for a new
 * execution (recording its marker), and on replay the one its history recorded. `patched()` of a
 * marker the history lacks is false on replay and records nothing, so asking newest first is
 * safe. Returns false when the history recorded none.
 */
export function decidePatchBaseline(): boolean {
  const found = baselines.find(([id]) => patched(id));
  const context = runContext();
  context.baseline = found?.[1];
  context.work = baselineWork(context.baseline);
  return found !== undefined;
}

/**
 * What a run of `baseline` does of the work the changes riding on baselines save: the one place
 * they are decided, into plain values of the run (RunContext.work) that its code reads where the
 * paths part. Never asks a marker.
 */
export function baselineWork(baseline: ReadonlySet<string> | undefined): BaselineWork {
  const has = (id: string): boolean => baseline?.has(id) === true;
  return { marksFirstTask: !has(firstTaskBeginsRun), logsModelUsage: has(modelUsageEvents), childrenInheritConfirmation: has(subAgentsInheritConfirmation), childrenTakeTenant: has(tenantRuns), sendsApprovalNotices: has(approvalNotices), joinsTenantAccount: has(tenantRuns) };
}

/**
 * Decides the baseline of an `agentRun` execution. Every `agentRun` of the window's releases
 * recorded a baseline at its start, so one without any of theirs was started by an older release
 * (named by its retired baseline, or before 0.9.0 when it has none): its workflow task fails with
 * {@link OutsideSupportWindowError} (retried until a worker of a release that still replays it
 * takes the run), instead of diverging from its history.
 *
 * @throws OutsideSupportWindowError on replay of a run recorded before the window.
 */
export function decideRunBaseline(): void {
  if (decidePatchBaseline()) return;
  // Only on replay (a new execution records the newest baseline above): patched() records nothing here.
  throw new OutsideSupportWindowError(outsideWindowReason((id) => patched(id)));
}

/**
 * Why a run that recorded none of the window's baselines is outside it: the release its retired
 * baseline names, or no baseline at all (before 0.9.0). `recorded` tells whether the run recorded
 * a marker: `patched` in workflow code, the history's markers in the replay tools.
 */
export function outsideWindowReason(recorded: (id: string) => boolean): string {
  const retired = retiredBaselines.find(recorded);
  return retired ? `recorded by release ${retired.replace('baseline-', '')} (marker ${retired})` : supportWindow.noBaselineReason;
}

/**
 * Whether this run takes the patched branch of `id`: true when the run's baseline includes it,
 * otherwise `patched(id)` (a marker the first time it is true in a new execution).
 */
export function isPatched(id: string): boolean {
  return runContext().baseline?.has(id) === true || patched(id);
}

/**
 * At the point where a session follows a new worker version: a session of 1.0.0 or later has
 * the patch in its baseline; an older one takes it by its marker (recorded whenever a session of
 * 0.5.0 or later got here). Without either, the session was recorded before 0.5.0.
 *
 * @throws OutsideSupportWindowError on replay of a session recorded before 0.5.0.
 */
export function refuseSessionWithoutFollowMarker(): void {
  if (!isPatched(sessionsFollowNewVersions)) {
    throw new OutsideSupportWindowError(`a session recorded by a release before 0.5.0 (no ${sessionsFollowNewVersions} marker where its worker version changed)`);
  }
}
