import { patched } from '@temporalio/workflow';

/**
 * Every `patched()` id of the workflow code, one constant each (sorted by release). A patch
 * guards a change to the commands a run emits: runs recorded before the change take the old
 * branch on replay. Retire a patch with `deprecatePatch(id)` once no run that predates it can
 * be open, and remove it one release later.
 *
 * Workflow code asks {@link isPatched}, never `patched()` directly: a run started on 0.9.0 or
 * later records one baseline marker at its start instead of a marker per patch it meets (see
 * {@link baseline090}).
 */

/** 0.2.0: tool activities are typed `<agent>/<tool>` instead of `<tool>`. */
export const namespacedToolActivities = 'namespaced-tool-activities';

/**
 * 0.2.0: an operator's edit or drop of a call that is not planned-and-waiting (finished, running,
 * awaiting a human decision, or not planned yet) is refused at once instead of queued forever
 * (or applied to whatever later call gets that id). Guards the intervene signal; the update
 * validator refuses such calls in every run (validators do not run on replay).
 */
export const strictCallModifications = 'strict-call-modifications';

/**
 * 0.2.0: once a run is paused, nothing new starts until resume: parallel calls that reach their
 * before_tool safe point after a sibling paused the run wait there too, and a call approved
 * during a pause waits before it is dispatched. Runs recorded before let them go on.
 */
export const pauseHoldsEveryCall = 'pause-holds-every-call';

/**
 * 0.2.0: a call that reaches its confirmation after its turn was cancelled (the time budget ran
 * out mid-turn with sequential calls) is answered as cancelled instead of failing the run with
 * the approval wait's CancelledFailure. Runs recorded before failed there.
 */
export const cancelledTurnAnswersCalls = 'cancelled-turn-answers-calls';

/**
 * 0.3.0: Temporal's own cancel request ends a run exactly like a kill. A call waiting for
 * approval (or an await waiting for answers) is answered as ended, and the turn's running calls
 * are answered before the run closes. Runs recorded before closed at once, answering the running
 * calls as "terminated before this call ran" (and their real outputs arrived after the end).
 */
export const cancellationEndsLikeKill = 'cancellation-ends-like-kill';

/**
 * 0.3.0: a run whose carried state would pass the byte bound even fully compacted does not
 * continue as new (Temporal would refuse the payload and end the run); it goes on in its
 * execution. Runs recorded before continued as new with the uncompacted state.
 */
export const boundedCarriedState = 'bounded-carried-state';

/**
 * 0.3.0: a cancelled tool call (kill, cancel, spent time budget) is answered once the tool
 * stopped (`WAIT_CANCELLATION_COMPLETED`), so a planner never retries a call whose side effect
 * is still happening. Runs recorded before answered at once (`TRY_CANCEL`).
 */
export const toolsStopBeforeCancelled = 'tools-stop-before-cancelled';

/**
 * 0.3.0: an await turn counts toward the iteration cap, as a tool turn does; a planner that
 * keeps awaiting reaches the cap and gets its Finalize turn. Runs recorded before did not count it.
 */
export const awaitTurnsCount = 'await-turns-count';

/**
 * 0.3.0: calls a human rejected or an operator dropped or blocked do not count toward the
 * consecutive-failure cap (they were refused, not failed). Runs recorded before counted them.
 */
export const rejectionsAreNotFailures = 'rejections-are-not-failures';

/**
 * 0.3.0: call ids an await binds are made unique in the run (`id#2`), as planned calls' are,
 * and later planned calls do not reuse them; runs recorded before kept a repeated id, which put
 * two calls of one id in the transcript. Checked only in runs whose awaits bind calls.
 */
export const uniqueAwaitCallIds = 'unique-await-call-ids';

/**
 * 0.5.0: on versioned workers, a session whose deployment has a new current version continues as
 * new onto it before its next run. Checked only when Temporal reports a new target version, which
 * never happens to a session of unversioned workers (they record no marker).
 */
export const sessionsFollowNewVersions = 'sessions-follow-new-versions';

/**
 * 0.6.0: a turn boundary is marked by the turn's first activity (`turn-<N>/…`) when the task
 * that began the turn schedules one, instead of by a memo change at every boundary (an event and
 * a visibility write per turn); model activities get `turn-<N>/model-<k>` ids for it. Runs
 * recorded before write the memo change at every boundary and keep default model activity ids.
 */
export const turnBoundariesInCommands = 'turn-boundaries-in-commands';

/**
 * 0.7.0: a tool turn's bookkeeping after its calls (leaving the turn's scope, the transcript,
 * usage and the after_tool safe point) runs in one step instead of three chained ones: two
 * promises less per turn, and the next turn's commands come two microtasks sooner, which can
 * order them differently against a handler running in the same task. Runs recorded before take
 * the three steps.
 */
export const turnSettlesInOneStep = 'turn-settles-in-one-step';

/**
 * 0.8.0: a tool call's output is recorded (and its concurrency slot freed) in the same promise
 * step that turns its activity's result into an output, instead of in a step of its own: one
 * promise less per call, and each call's output is recorded one microtask sooner, which can
 * order commands differently against other code running in the same task. Runs recorded before
 * take the extra step.
 */
export const callSettlesInOneStep = 'call-settles-in-one-step';

/**
 * 0.9.0: the time-budget watch arms its timer as a `sleep` in a scope of its own next to a plain
 * `condition`, stepping from callbacks, instead of looping over `condition(fn, timeout)` (a
 * race in a cancellable scope): about twenty promises less per run start. Its timer commands
 * come at other microtasks, and at the run's end the timer is no longer cancelled (it closes
 * with the run). Part of the baseline: asked only by runs recorded before 0.9.0, which never
 * have it (their start is replayed).
 */
export const budgetWatchWithoutRace = 'budget-watch-without-race';

/**
 * 0.9.0: the baseline marker. An `agentRun` execution started on this release records it as its
 * first command, and it stands for every patch listed in {@link patchesInBaseline090}: those
 * patches are in effect for the whole run without a marker of their own. Before, a run recorded
 * a marker and a `TemporalChangeVersion` search-attribute update for each patch it met: ten
 * events at the start of every run (five patches), each a write the server stores and indexes.
 *
 * Runs recorded before 0.9.0 have no baseline marker: on replay `patched(baseline090)` is false,
 * and each patch is asked on its own exactly as before, at the same points. The decision is
 * taken once, when the execution starts ({@link decidePatchBaseline}), and holds for all of it,
 * so a run that was open when 0.9.0 was deployed (its start is always replayed) keeps asking
 * patch by patch.
 */
export const baseline090 = 'baseline-0.9.0';

/**
 * The patches a run with the {@link baseline090} marker takes without asking: all of
 * `agentRun`'s up to 0.8.0, and those of 0.9.0 itself.
 */
export const patchesInBaseline090: ReadonlySet<string> = new Set([
  namespacedToolActivities,
  strictCallModifications,
  pauseHoldsEveryCall,
  cancelledTurnAnswersCalls,
  cancellationEndsLikeKill,
  boundedCarriedState,
  toolsStopBeforeCancelled,
  awaitTurnsCount,
  rejectionsAreNotFailures,
  uniqueAwaitCallIds,
  turnBoundariesInCommands,
  turnSettlesInOneStep,
  callSettlesInOneStep,
  budgetWatchWithoutRace,
]);

/**
 * 0.10.0: the wait beside the time-budget timer (where every run starts) is tested when the run
 * reports a change (idling, its end, a budget change) or the timer fires, instead of being a
 * `condition`: four promises less per run start. Its step runs in the code that made the change
 * instead of after the task's microtasks, so its timer commands can come in another order
 * against the task's other commands. Runs recorded before take the condition.
 */
export const budgetWatchOnChanges = 'budget-watch-on-changes';

/**
 * 0.10.0: the workflow function, the run metrics and the run loop's error handling are one async
 * step instead of three nested async functions: five promises less per run, and the run's end
 * reaches the SDK a few microtasks sooner, which can order its completion differently against a
 * handler running in the same task. Runs recorded before take the nested steps.
 */
export const flatRunChain = 'flat-run-chain';

/**
 * 0.10.0: the baseline marker of 0.10.0, recorded instead of {@link baseline090} by a run started
 * on this release. It stands for everything 0.9.0's does and for 0.10.0's own patches.
 */
export const baseline0100 = 'baseline-0.10.0';

/** The patches a run with the {@link baseline0100} marker takes without asking. */
export const patchesInBaseline0100: ReadonlySet<string> = new Set([...patchesInBaseline090, budgetWatchOnChanges, flatRunChain]);

/**
 * 0.11.0: a workflow task marks only the first turn boundary in it. Turns that begin in a task
 * an earlier turn began (local tools run many turns in one task) share that turn's reset point:
 * a rewind to them resets to the task's start and re-runs the earlier turn too. Runs recorded
 * before wrote a memo change for each (an event per turn naming a checkpoint no rewind could
 * reach apart from the first); the checkpoint reader now lists one boundary per task for them.
 */
export const oneBoundaryPerTask = 'one-boundary-per-task';

/**
 * 0.11.0: the baseline marker of 0.11.0, recorded instead of {@link baseline0100} by a run started
 * on this release. It stands for everything 0.10.0's does and for {@link oneBoundaryPerTask}.
 */
export const baseline0110 = 'baseline-0.11.0';

/** The patches a run with the {@link baseline0110} marker takes without asking. */
export const patchesInBaseline0110: ReadonlySet<string> = new Set([...patchesInBaseline0100, oneBoundaryPerTask]);

/**
 * 0.12.0: a turn of parallel calls joins them by the calls reporting their ends from the step
 * that records each output, instead of `Promise.all` over their promises: one promise less per
 * call (`Promise.all` reacts to each), and the turn goes on one microtask sooner after its last
 * call, which can order the next turn's commands differently against a handler running in the
 * same task. Runs recorded before join with `Promise.all`.
 */
export const parallelCallsJoin = 'parallel-calls-join';

/**
 * 0.12.0: the baseline marker of 0.12.0, recorded instead of {@link baseline0110} by a run started
 * on this release. It stands for everything 0.11.0's does and for {@link parallelCallsJoin}.
 */
export const baseline0120 = 'baseline-0.12.0';

/** The patches a run with the {@link baseline0120} marker takes without asking. */
export const patchesInBaseline0120: ReadonlySet<string> = new Set([...patchesInBaseline0110, parallelCallsJoin]);

/**
 * 0.13.0: a dependency-aware plan gives a scope of its own only to calls with an output path
 * (alternatives the turn may cancel one by one), without the SDK's async wrapper, and its loop is
 * woken by the calls' own steps instead of a non-cancellable `condition`; a call that fails fails
 * the turn at once. About eight promises less per call and five per wait, and the steps after a
 * call's end come at other microtasks, which can order commands differently within a task. Runs
 * recorded before keep the scope per call and the condition.
 */
export const lightCallGraphs = 'light-call-graphs';

/**
 * 0.13.0: the baseline marker of 0.13.0, recorded instead of {@link baseline0120} by a run started
 * on this release. It stands for everything 0.12.0's does and for {@link lightCallGraphs}.
 */
export const baseline0130 = 'baseline-0.13.0';

/** The patches a run with the {@link baseline0130} marker takes without asking. */
export const patchesInBaseline0130: ReadonlySet<string> = new Set([...patchesInBaseline0120, lightCallGraphs]);

/**
 * 0.14.0: session runs and sub-agent runs start with the memo (`agent`) and, when the starting
 * workflow has AgentName (so the namespace has the attributes), the AgentName search attribute
 * of a plain run, so they mirror their status into AgentStatus and every list, filter and
 * metric sees them. Runs recorded before started their children without them.
 */
export const childRunsListed = 'child-runs-listed';

/**
 * 0.14.0: the wait between a tool turn's last tool end and the task that records its outputs
 * (a rewind's reset re-records them at today's time; a workflow worker outage delays them) is
 * not charged to the time budget when it is a second or more. Asked only for such a wait, so
 * runs without one record no marker. Runs recorded before were charged it.
 */
export const budgetCountsWork = 'budget-counts-work';

/**
 * 0.14.0: a model call that still fails for an outage or rate limits (`model_unavailable`,
 * `model_rate_limited`) after its attempts, and a toolset listing whose MCP server is still
 * unavailable after its attempts, wait for the provider instead of failing the run (or going on
 * without the toolset): the run logs `model_waiting` / `mcp_waiting`, its status shows the wait,
 * and the call is scheduled again with a retry policy without an attempt limit (backoff capped at
 * a minute, or the provider's Retry-After) whose schedule-to-close timeout is what is left of the
 * time budget. Asked only when such a failure comes back, so runs without an outage record no
 * marker; the first activity of every call is scheduled as before.
 */
export const waitOutProviderOutages = 'wait-out-provider-outages';

/**
 * 0.14.0: a run input with a value nested deeper than 64 levels (`maxInputJsonDepth`, the bound
 * of every other input) fails the run with `invalid_input` at its start. Asked only for such an
 * input. Runs recorded before ran with it, and readers of their results failed on it.
 */
export const boundedInputDepth = 'bounded-input-depth';

/**
 * The baseline markers, newest first, with the patches each stands for. A new execution records
 * the first; replay finds the one its history recorded, if any.
 */
const baselines: readonly (readonly [id: string, patches: ReadonlySet<string>])[] = [
  [baseline0130, patchesInBaseline0130],
  [baseline0120, patchesInBaseline0120],
  [baseline0110, patchesInBaseline0110],
  [baseline0100, patchesInBaseline0100],
  [baseline090, patchesInBaseline090],
];

/**
 * The patches in effect for the whole of this execution (undefined: none, ask each one).
 * Module state is per execution: the SDK evaluates the workflow modules once for each
 * execution (preloaded modules aside, and this one is never preloaded).
 */
let baseline: ReadonlySet<string> | undefined;

/**
 * Decides, once at the start of an `agentRun` execution, which baseline it runs with: the newest
 * for a new execution (recording its marker), and on replay the one its history recorded; none on
 * replay of an execution recorded before 0.9.0. `patched()` of a marker the history lacks is
 * false on replay and records nothing, so asking newest first is safe.
 */
export function decidePatchBaseline(): void {
  baseline = baselines.find(([id]) => patched(id))?.[1];
}

/**
 * Whether this run takes the patched branch of `id`: true when the run's baseline includes it,
 * otherwise `patched(id)` (a marker the first time it is true in a new execution).
 */
export function isPatched(id: string): boolean {
  return baseline?.has(id) === true || patched(id);
}
