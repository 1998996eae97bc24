import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, type InjectedSinks, type WorkflowBundleOption } from '@temporalio/worker';
import { durableAgentsSinkName, type DurableAgentsSinks } from '../workflows/bundle-sinks';
import { dataConverterFromEnv } from './encryption';

/** Outcome of replaying a history against the current workflow code. */
export type ReplayOutcome =
  | { readonly ok: true; readonly events: number }
  | { readonly ok: false; readonly kind: 'nondeterminism' | 'unknown_agent' | 'failure'; readonly problem: string; readonly detail: string };

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
 * reported as `unknown_agent` ("agent X is not in this bundle"), never as nondeterminism.
 */
export async function replayHistoryJson(json: unknown, workflowBundle: ReplayBundle): Promise<ReplayOutcome> {
  const history = historyFromJSON(json);
  let missingAgent: { agent: string; known: string[] } | undefined;
  const sinks: InjectedSinks<DurableAgentsSinks> = {
    [durableAgentsSinkName]: {
      unknownAgent: {
        fn: (_info, agent, known) => {
          missingAgent = { agent, known };
        },
        callDuringReplay: true,
      },
      boundary: { fn: () => undefined },
    },
    // Bundles with the tracing interceptors export spans through this sink (never on replay).
    exporter: { export: { fn: () => undefined } },
  } as InjectedSinks<DurableAgentsSinks>;
  try {
    // An exported history of an encrypted deployment needs its keys (DURABLE_AGENTS_ENCRYPTION_KEYS).
    const dataConverter = dataConverterFromEnv();
    await Worker.runReplayHistory({ workflowBundle, sinks, ...(dataConverter ? { dataConverter } : {}) }, history);
    if (missingAgent) return unknownAgent(missingAgent);
    return { ok: true, events: history.events?.length ?? 0 };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (missingAgent) return unknownAgent(missingAgent);
    if (err instanceof DeterminismViolationError) {
      return { ok: false, kind: 'nondeterminism', problem: explainNondeterminism(message), detail: message };
    }
    return { ok: false, kind: 'failure', problem: message, detail: message };
  }
}

function unknownAgent({ agent, known }: { agent: string; known: string[] }): ReplayOutcome {
  const problem = `agent ${JSON.stringify(agent)} is not in this bundle (its agents: ${known.join(', ') || 'none'}); replay against the workflows module that defines it`;
  return { ok: false, kind: 'unknown_agent', problem, detail: problem };
}
