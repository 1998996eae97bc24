import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, type InjectedSinks, type WorkflowBundleOption } from '@temporalio/worker';
import { durableAgentsSinkName, type DurableAgentsSinks } from '../workflows/bundle/bundle-sinks';
import { agentRunWorkflowType } from '../contracts/definitions';
import { agentSessionWorkflowType } from '../contracts/session';
import { outsideWindowReason, releases } from '../workflows/versioning/patches';
import { OutsideSupportWindowError, outsideSupportWindowMarker } from '../workflows/versioning/support-window';
import { dataConverterFromEnv } from '../config/encryption';
import { patchMarkerIds } from '../history/patch-markers';

/** Outcome of replaying a history against the current workflow code. */
export type ReplayOutcome =
  | { readonly ok: true; readonly events: number }
  | {
      readonly ok: false;
      readonly kind: 'nondeterminism' | 'unknown_agent' | 'outside_support_window' | 'failure';
      readonly problem: string;
      readonly detail: string;
    };

type History = ReturnType<typeof historyFromJSON>;

/**
 * Why a history is outside this version's support window, or undefined when it is inside (or
 * cannot be told from its events: the workflow code then decides as it replays). Every `agentRun`
 * of the window's releases recorded a baseline marker at its start; one without was started
 * before the window. Sessions recorded no baseline before 1.0.0: the session workflow refuses
 * an old one where its code would part from the history.
 */
export function supportWindowProblem(history: History): string | undefined {
  const events = history.events ?? [];
  const type = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  if (type !== agentRunWorkflowType) return undefined;
  // A history cut before its first workflow task completed has recorded no command yet.
  if (!events.some((e) => e.workflowTaskCompletedEventAttributes)) return undefined;
  const recorded = new Set(events.flatMap(patchMarkerIds));
  return releases.some((r) => recorded.has(r.baseline)) ? undefined : outsideWindowReason((id) => recorded.has(id));
}

/**
 * The workflow id to replay a history under: `fallback`, except for a session. A session names its
 * runs after its own workflow id (`<session id>/run-<n>`), so replayed under another id it starts
 * children the history did not: its id is read from its first run's start. A session that started
 * no run replays under `fallback` (nothing it recorded depends on its id).
 */
export function replayWorkflowId(history: History, fallback: string): string {
  const events = history.events ?? [];
  if (events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name !== agentSessionWorkflowType) return fallback;
  for (const event of events) {
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    const sessionId = child?.workflowType?.name === agentRunWorkflowType ? /^(.+)\/run-\d+$/.exec(child.workflowId ?? '')?.[1] : undefined;
    if (sessionId) return sessionId;
  }
  return fallback;
}

/**
 * Refuses a history (JSON, as exported) recorded before this version's support window, before
 * any replay.
 *
 * @throws OutsideSupportWindowError naming the window and the release line that replays the run.
 * @throws Error when the JSON is not a workflow history.
 */
export function assertInSupportWindow(json: unknown): void {
  refuseOutsideSupportWindow(historyFromJSON(json));
}

/**
 * Refuses a parsed history recorded before this version's support window ({@link supportWindowProblem}).
 *
 * @throws OutsideSupportWindowError naming the window and the release line that replays the run.
 */
export function refuseOutsideSupportWindow(history: History): void {
  const problem = supportWindowProblem(history);
  if (problem) throw new OutsideSupportWindowError(problem);
}

/** Turns the SDK's nondeterminism message into plain words: which event, which command differed. */
export function explainNondeterminism(message: string): string {
  const core = /Nondeterminism error: (.*?)(?:", source|$)/s.exec(message)?.[1] ?? message;
  const typed = /Activity type of scheduled event '([^']+)' does not match activity type of activity command '([^']+)'/.exec(core);
  if (typed) {
    return `the history scheduled activity "${typed[1]}" but the current code schedules "${typed[2]}" at that point`;
  }
  // Core says "…Machine does not handle this event: HistoryEvent(…)" or, for some machines, without "this event:".
  const machine = /(\w+?) ?[Mm]achine does not handle (?:this event: )?HistoryEvent\(id: (\d+), (\w+)\)/.exec(core);
  if (machine) {
    return `at history event ${machine[2]} (${machine[3]}) the current code issued a different command (a ${machine[1]} command) than the one recorded`;
  }
  const missing = /No command scheduled for event HistoryEvent\(id: (\d+), (\w+)\)/.exec(core);
  if (missing) return `history event ${missing[1]} (${missing[2]}) has no matching command in the current code: the code no longer does that step`;
  return core.trim();
}

/** A bundle to replay against: built in memory, or a bundle file on disk. */
export type ReplayBundle = WorkflowBundleOption;

/**
 * Replays a history (JSON, as exported) against a workflow bundle and reports a determinism
 * problem in plain words instead of throwing. A history whose agent is not in the bundle is
 * reported as `unknown_agent` ("agent X is not in this bundle"), and one recorded before the
 * support window as `outside_support_window` (checked before replay), never as nondeterminism.
 */
export async function replayHistoryJson(json: unknown, workflowBundle: ReplayBundle): Promise<ReplayOutcome> {
  const [outcome] = await replayHistoriesJson([json], workflowBundle);
  return outcome!;
}

/**
 * Replays histories (JSON, as exported) against a workflow bundle in one replay worker, and
 * reports each as {@link replayHistoryJson} does, in order. Creating a replay worker (loading
 * the bundle and its source map) costs far more than replaying a short history, so a corpus is
 * replayed through one.
 */
export async function replayHistoriesJson(jsons: readonly unknown[], workflowBundle: ReplayBundle): Promise<ReplayOutcome[]> {
  const outcomes: (ReplayOutcome | undefined)[] = jsons.map(() => undefined);
  const histories: { workflowId: string; history: ReturnType<typeof historyFromJSON>; index: number }[] = [];
  jsons.forEach((json, index) => {
    try {
      const history = historyFromJSON(json);
      const outside = supportWindowProblem(history);
      if (outside) outcomes[index] = outsideWindow(new OutsideSupportWindowError(outside).message);
      else histories.push({ workflowId: replayWorkflowId(history, `replay-${index}`), history, index });
    } catch (err) {
      const problem = `not a workflow history: ${err instanceof Error ? err.message : String(err)}`;
      outcomes[index] = { ok: false, kind: 'failure', problem, detail: problem };
    }
  });
  const missingAgents = new Map<string, { agent: string; known: string[] }>();
  const sinks: InjectedSinks<DurableAgentsSinks> = {
    [durableAgentsSinkName]: {
      unknownAgent: {
        fn: (info, agent, known) => {
          missingAgents.set(info.workflowId, { agent, known });
        },
        callDuringReplay: true,
      },
      boundary: { fn: () => undefined },
      eventsAppended: { fn: () => undefined },
    },
    // Bundles with the tracing interceptors export spans through this sink (never on replay).
    exporter: { export: { fn: () => undefined } },
  } as InjectedSinks<DurableAgentsSinks>;
  if (histories.length) {
    // An exported history of an encrypted deployment needs its keys (DURABLE_AGENTS_ENCRYPTION_KEYS).
    const dataConverter = dataConverterFromEnv();
    try {
      const results = Worker.runReplayHistories({ workflowBundle, sinks, ...(dataConverter ? { dataConverter } : {}) }, histories);
      // One history at a time, answered in order (two executions of one session share its id).
      let next = 0;
      for await (const { workflowId, error } of results) {
        const replayed = histories[next++];
        if (!replayed) continue;
        const missing = missingAgents.get(workflowId);
        missingAgents.delete(workflowId);
        outcomes[replayed.index] = missing ? unknownAgent(missing) : error ? failed(error) : { ok: true, events: replayed.history.events?.length ?? 0 };
      }
    } catch (err) {
      // The replay worker itself failed (a bundle that does not load, say): every history it had not answered gets that failure.
      for (const { index } of histories) outcomes[index] ??= failed(err);
    }
  }
  return outcomes.map((outcome, index) => outcome ?? { ok: false, kind: 'failure', problem: `history ${index + 1} was not replayed`, detail: `history ${index + 1} was not replayed` });
}

function failed(err: unknown): ReplayOutcome {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof DeterminismViolationError) {
    return { ok: false, kind: 'nondeterminism', problem: explainNondeterminism(message), detail: message };
  }
  // The workflow code refused the run (a workflow task failure whose message names the window).
  const refusal = new RegExp(`message: "([^"]*${outsideSupportWindowMarker}[^"]*)"`).exec(message);
  if (refusal?.[1]) return outsideWindow(refusal[1], message);
  return { ok: false, kind: 'failure', problem: message, detail: message };
}

function outsideWindow(problem: string, detail = problem): ReplayOutcome {
  return { ok: false, kind: 'outside_support_window', problem, detail };
}

function unknownAgent({ agent, known }: { agent: string; known: string[] }): ReplayOutcome {
  const problem = `agent ${JSON.stringify(agent)} is not in this bundle (its agents: ${known.join(', ') || 'none'}); replay against the workflows module that defines it`;
  return { ok: false, kind: 'unknown_agent', problem, detail: problem };
}
