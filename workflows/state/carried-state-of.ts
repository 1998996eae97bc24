/** What a run carries into its next execution (continue-as-new), compacted to fit the payload bound. */
import { jsonByteLength } from '../../contracts/json';
import type { RunInput } from '../../contracts/run';
import { carriedRunStateVersion, continuationInput, type CarriedOpenTurn, type CarriedRunState } from '../../contracts/carried-state';
import { carriedInputMaxBytes, carryLevels, compactTranscript, type CarryLevel } from './carry';
import { carriedOutputs } from './call-graph';
import type { RunState } from './run-state';

/**
 * The input of the next execution, within `maxBytes`: the run's input without its
 * conversation and session state (the carried state has them), and the carried state at the
 * first level of {@link carryLevels} that fits. Undefined when even the smallest does not fit
 * (the session or planner state alone is too large).
 */
export function continuedInput(state: RunState, maxBytes = carriedInputMaxBytes, openTurn?: CarriedOpenTurn): { input: RunInput | undefined; bytes: number } {
  let bytes = 0;
  for (const carry of carryLevels) {
    const input = continuationInput(state.input, carriedStateOf(state, carry, openTurn));
    bytes = jsonByteLength(input);
    if (bytes <= maxBytes) return { input, bytes };
  }
  return { input: undefined, bytes };
}

/**
 * The state to carry into the next execution. Old turns' results are compacted: the
 * transcript keeps what the planner saw, outputs older than the last turns drop their result.
 */
export function carriedStateOf(state: RunState, carry: CarryLevel = carryLevels[0]!, openTurn?: CarriedOpenTurn): CarriedRunState {
  const oldest = state.turn - carry.keptTurns;
  const transcript = compactTranscript(state.messages, carry.transcriptBytes, carry.messageChars);
  const toolOutputs = state.toolOutputs.slice(-carry.outputs).map((o) =>
    o.turn >= oldest || o.result === undefined
      ? o
      : (({ result: _dropped, ...rest }) => ({ ...rest, resultOmitted: true, resultOmittedReason: 'compacted' as const }))(o),
  );
  return {
    schemaVersion: carriedRunStateVersion,
    policy: state.policy,
    messages: transcript.messages,
    toolOutputs,
    plannerState: state.plannerState,
    sessionState: state.sessionState,
    usage: state.usage,
    ...(state.finalizeReason ? { finalizeReason: state.finalizeReason } : {}),
    ...(state.pendingTermination ? { pendingTermination: state.pendingTermination } : {}),
    turn: state.turn,
    ...state.clock.toCarried(),
    ...(state.instructionsOverride !== undefined ? { instructionsOverride: state.instructionsOverride } : {}),
    ...(state.steered.length ? { steered: [...state.steered] } : {}),
    control: {
      ...(state.control.pauseReason !== undefined ? { pauseReason: state.control.pauseReason } : {}),
      breakpoints: state.control.breakpointList,
      blockedTools: state.control.blockedList,
      queued: state.control.queued.map((q) => ({ id: q.id, intervention: q.intervention })),
      nextInterventionId: state.control.peekNextId,
    },
    alwaysApproved: [...state.human.alwaysApproved],
    ...(state.account ? { tenantAccount: state.account.carried() } : {}),
    events: state.log.tail(carry.events, carry.eventBytes),
    nextSeq: state.log.lastSeq + 1,
    generation: state.generation + 1,
    transcriptEpoch: state.transcriptEpoch + (transcript.dropped > 0 ? 1 : 0),
    ...(state.log.epoch ? { logEpoch: state.log.epoch } : {}),
    ...(state.outputs.size ? { outputs: carriedOutputs(state.outputs, oldest) } : {}),
    ...state.toolsets.toCarried(),
    ...(openTurn ? { openTurn } : {}),
  };
}
