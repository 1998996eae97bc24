/** What a run reports of itself: its status (the status query) and its result. */
import type { FinalResponse } from '../../contracts/plan';
import type { RunResult, RunStatusReport } from '../../contracts/run';
import type { RunState } from './run-state';

/** A run's result once it ended. */
export function runResult(run: RunState, status: 'completed' | 'terminated', response?: FinalResponse): RunResult {
  return {
    status,
    ...(response ? { final: response } : {}),
    ...(run.finalizeReason ? { finalizeReason: run.finalizeReason } : {}),
    iterations: run.usage.iterations,
    cost: run.cost(),
    sessionState: run.sessionState,
    lastEventSeq: run.log.lastSeq,
    ...(run.steered.length ? { steered: [...run.steered] } : {}),
  };
}

/** A run's status, as the status query answers it. */
export function statusReport(run: RunState): RunStatusReport {
  return {
    status: run.status,
    agent: run.agent.name,
    iteration: run.usage.iterations,
    turn: run.turn,
    pendingCalls: [...run.pending.values()].map(({ request, dispatched }) => ({ toolCallId: request.toolCallId, name: request.name, dispatched })),
    ...(run.children.size ? { children: [...run.children.values()] } : {}),
    ...(run.input.parent ? { parent: run.input.parent } : {}),
    ...(run.input.tenant ? { tenant: run.input.tenant } : {}),
    ...(run.finalizeReason ? { finalizeReason: run.finalizeReason } : {}),
    ...(run.control.pausedAt ? { pausedAt: { point: run.control.pausedAt.point, turn: run.control.pausedAt.turn } } : {}),
    ...(run.control.pauseReason ? { pauseReason: run.control.pauseReason } : {}),
    sessionState: run.sessionState,
    control: {
      blockedTools: run.control.blockedTools,
      breakpoints: run.control.breakpointList,
      queuedInterventions: run.control.queued.map((q) => ({ id: q.id, kind: q.intervention.kind })),
    },
    cost: run.cost(),
    lastEventSeq: run.log.lastSeq,
    ...(run.providerWait ? { waitingFor: run.providerWait } : {}),
  };
}
