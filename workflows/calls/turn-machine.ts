/**
 * A tool turn as a pure machine: every decision a turn takes about its calls, from the plan to
 * the outputs, as `stepCall(turn, row, event, facts) → action` for one call and
 * {@link scanTurn} / {@link callEnded} for the turn. No Temporal import: the driver
 * (turn-driver.ts) performs each action (a safe point, an approval, a pause hold, a slot, an
 * activity) and feeds what came of it back as the next event. Unit tests drive it with events
 * alone (test/unit/turn-machine.test.ts).
 *
 * The machine updates the turn's rows in place and reads nothing but its arguments: the same
 * events give the same actions, which is what replay needs.
 *
 * A call goes: planned → begun → at its safe point (before_tool) → checked (operators' edits and
 * drops, blocks, its arguments) → deciding (a human confirms it) → held (a pause) → waiting for
 * a slot → in flight → ended. Any step may close it with an output instead.
 */
import type { ParsedCallDecision } from '../../contracts/hitl';
import type { RunEventDraft } from '../../contracts/events';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { DependencyOutput, RetryHint, ToolOutput, ToolRequest } from '../../contracts/tools';
import type { HookAction, HookEvent } from '../agents/agent-hooks';
import { closedOutput } from '../kernel/outputs';
import { usesCallGraph } from '../state/call-graph';
import type { QueuedIntervention } from '../state/run-control';
import { confirmationOf, decisionOutcome, deniedChange, judgedCall, modifiedCall, prepareCall, ruledDecision, type ConfirmationFacts, type PreparedCall } from './call-rules';
import type { RuleVerdict } from '../../contracts/approval-policy';
import type { ApprovalJudgement } from '../../contracts/approval-judge';
import { graphSchedule, lostMessage, settleAlternative, type GraphSchedule } from './call-schedule';

// ---- the turn's state ------------------------------------------------------------------

/** Where a call of the turn stands. */
export type CallPhase = 'planned' | 'begun' | 'at_safe_point' | 'judging' | 'deciding' | 'held' | 'awaiting_slot' | 'in_flight' | 'ended';

/** A call that passed its checks and is to run. */
export type DispatchableCall = Extract<PreparedCall, { type: 'dispatch' }>;

/** One call of the turn: a data row, changed only by the machine. */
export interface CallRow {
  readonly index: number;
  /** The call as the plan has it. */
  readonly planned: ToolRequest;
  /** The call as hooks, operators and humans have edited it so far. */
  request: ToolRequest;
  phase: CallPhase;
  /** The call as checked against its tool, once it passed its checks. */
  prepared?: DispatchableCall;
  /** What a human's decision made of the call, until it is applied. */
  decided?: PreparedCall;
  /** The judge rule a call waits for (`judging`). */
  judging?: RuleVerdict;
  /** In a dependency-aware plan: the outputs of the calls it depends on, once it may start. */
  dependencies?: readonly DependencyOutput[];
}

/**
 * How the driver waits for a turn's calls. Each runs the calls' steps in the same microtasks as
 * the releases whose histories replay (the order of concurrent calls' commands follows from it):
 * a single call is its own turn; parallel calls report their ends as they happen (`joined`);
 * sequential calls run one after another (`in_order`); a dependency-aware plan is scanned again
 * whenever a call ends (`graph`).
 */
export type TurnCadence = 'single' | 'joined' | 'in_order' | 'graph';

/** The calls of a turn the previous execution continued as new in (see CallRunner.openTurnAtRest). */
export interface CarriedCalls {
  readonly ended: ReadonlyMap<string, ToolOutput>;
  readonly waiting: ReadonlyMap<string, ToolRequest>;
}

export interface ToolTurnState {
  readonly rows: readonly CallRow[];
  readonly cadence: TurnCadence;
  /** Calls at this index or later are answered `tool_cap`: the run's tool-call cap is reached. */
  readonly allowed: number;
  /** The schedule of a dependency-aware plan (`graph` cadence). */
  readonly schedule: GraphSchedule | undefined;
  readonly carried: CarriedCalls | undefined;
}

/** A new turn for the calls of one plan. */
export function newTurn(requests: readonly ToolRequest[], options: { readonly parallel: boolean; readonly allowed: number; readonly carried?: CarriedCalls }): ToolTurnState {
  const graph = usesCallGraph(requests);
  const cadence: TurnCadence = graph ? 'graph' : requests.length === 1 ? 'single' : options.parallel ? 'joined' : 'in_order';
  return {
    rows: requests.map((request, index) => ({ index, planned: request, request, phase: 'planned' })),
    cadence,
    allowed: options.allowed,
    schedule: graph ? graphSchedule(requests, options.parallel) : undefined,
    carried: options.carried,
  };
}

// ---- what the machine reads of the run ----------------------------------------------------

/** The run as the machine sees it at a step: read-only facts the driver passes in. */
export interface TurnFacts {
  /** The run's turn number (for the before_tool hook). */
  readonly turn: number;
  readonly tools: readonly ToolDefinition[];
  /** Why operators blocked a tool, if they did. */
  blockReason(tool: string): string | undefined;
  readonly confirmation: ConfirmationFacts;
  readonly pauseRequested: boolean;
  /** The turn's calls were cancelled (a kill, the time budget). */
  readonly turnCancelled: boolean;
  /** Why the run cancelled the turn's calls, once it did. */
  readonly cancelHint: RetryHint | undefined;
  /** The run's tool-call cap (for the `tool_cap` answer). */
  readonly maxToolCalls: number;
  /** The policy's limit of calls in flight at once, if any, and how many are. */
  readonly concurrencyLimit: number | undefined;
  readonly inFlight: number;
}

// ---- a call's events and actions ----------------------------------------------------------

/** How a wait of a call ended with an error: the run's termination, a cancellation, or anything else. */
export type WaitFailure = 'terminated' | 'cancelled' | 'other';

/** What happened to a call: the answer to its last action. */
export type CallEvent =
  | { readonly type: 'begin' }
  /** After `claim_early`: no call started early matches it. */
  | { readonly type: 'not_early' }
  /** After `safe_point`: what the before_tool hook or an operator's breakpoint said. */
  | { readonly type: 'safe_point'; readonly action: HookAction | undefined }
  /** After `take_queued`: the operators' modifications queued for this call, taken. */
  | { readonly type: 'queued'; readonly queued: readonly QueuedIntervention[] }
  /** During `ask`, once the wait ended: the human's decision, or none (the run ended first). */
  | { readonly type: 'decided'; readonly decision: ParsedCallDecision | undefined }
  /** After `judge`: what the judge answered, or why it did not. */
  | { readonly type: 'judged'; readonly judgement: ApprovalJudgement | { readonly failed: string } }
  /** After `ask`: the decision is recorded (the `decision` action's events). */
  | { readonly type: 'decision_taken' }
  /** After `hold`: the pause was lifted. */
  | { readonly type: 'resumed' }
  /** After `wait_slot`: a slot may be free. */
  | { readonly type: 'slot_freed' }
  /** A wait (safe point, approval, hold, slot) ended with an error. */
  | { readonly type: 'failed'; readonly failure: WaitFailure };

/** What the driver does next for a call. `emit` events are recorded first, in order. */
export type CallAction =
  /** Claim a call started while the model still answered, if one matches; else answer `not_early`. */
  | { readonly type: 'claim_early' }
  | { readonly type: 'safe_point'; readonly event: Extract<HookEvent, { point: 'before_tool' }> }
  | { readonly type: 'take_queued' }
  /** Ask the judge of a `judge` rule about the call (an activity) and wait for its answer. */
  | { readonly type: 'judge'; readonly verdict: RuleVerdict; readonly emit: readonly RunEventDraft[] }
  /** Ask a human (unless `asked` before this execution) and wait for the decision. */
  | { readonly type: 'ask'; readonly asked: boolean; readonly emit: readonly RunEventDraft[] }
  /** The answer to `decided`, inside the wait: record the decision's events; `decision_taken` goes on. */
  | { readonly type: 'decision'; readonly emit: readonly RunEventDraft[] }
  | { readonly type: 'hold'; readonly emit: readonly RunEventDraft[] }
  | { readonly type: 'wait_slot'; readonly emit: readonly RunEventDraft[] }
  | { readonly type: 'dispatch'; readonly prepared: DispatchableCall; readonly emit: readonly RunEventDraft[] }
  /**
   * Answer the call with `output`: recorded (`record`), or as the previous execution recorded it.
   * `withdraw`: the approval it waited for is void.
   */
  | { readonly type: 'close'; readonly output: ToolOutput; readonly record: boolean; readonly withdraw?: boolean; readonly emit: readonly RunEventDraft[] }
  /** The wait's error is not the call's to answer: it fails the turn. */
  | { readonly type: 'rethrow' };

const none: readonly RunEventDraft[] = [];

/**
 * The next action of one call, given what happened to it. Throws only what agent code threw (a
 * tool's `requiresConfirmation` rule, see needsConfirmation).
 */
export function stepCall(turn: ToolTurnState, row: CallRow, event: CallEvent, facts: TurnFacts): CallAction {
  switch (event.type) {
    case 'begin':
      return begin(turn, row, facts);
    case 'not_early':
      if (row.index >= turn.allowed) return close(row, closedOutput(row.request, 'tool_cap', `not run: the tool-call cap of ${facts.maxToolCalls} is reached`));
      row.phase = 'at_safe_point';
      return { type: 'safe_point', event: { point: 'before_tool', turn: facts.turn, call: row.request } };
    case 'safe_point':
      if (event.action?.type === 'block') return close(row, closedOutput(row.request, 'rejected', `blocked by agent hook: ${event.action.reason}`));
      if (event.action?.type === 'edit_args') row.request = { ...row.request, args: event.action.args };
      return { type: 'take_queued' };
    case 'queued':
      return checked(row, event.queued, facts);
    case 'judged':
      return judged(row, event.judgement, facts);
    case 'decided':
      return decided(row, event.decision, facts);
    case 'decision_taken':
      return confirmed(row, row.decided!, none, facts);
    case 'resumed':
    case 'slot_freed':
      return slot(row, row.prepared!, none, facts);
    case 'failed':
      return failed(turn, row, event.failure, facts);
  }
}

function begin(turn: ToolTurnState, row: CallRow, facts: TurnFacts): CallAction {
  row.phase = 'begun';
  const { carried } = turn;
  const id = row.request.toolCallId;
  if (carried) {
    // Recorded by the previous execution: its events and session changes are there already.
    const output = carried.ended.get(id);
    if (output) {
      row.phase = 'ended';
      return { type: 'close', output, record: false, emit: none };
    }
    const waiting = carried.waiting.get(id);
    if (waiting) {
      row.request = waiting;
      return waitingAgain(row, facts);
    }
  }
  return { type: 'claim_early' };
}

function close(row: CallRow, output: ToolOutput, emit: readonly RunEventDraft[] = none, withdraw = false): CallAction {
  row.phase = 'ended';
  return { type: 'close', output, record: true, emit, ...(withdraw ? { withdraw } : {}) };
}

/** Answers `failed` for a wait: a kill or a cancellation answers the call, anything else fails the turn. */
function failed(turn: ToolTurnState, row: CallRow, failure: WaitFailure, facts: TurnFacts): CallAction {
  const lost = cancelMessageOf(turn, row);
  switch (row.phase) {
    case 'at_safe_point':
    case 'held':
      if (failure === 'other') return { type: 'rethrow' };
      return close(row, closedOutput(row.request, 'cancelled', 'the run ended before this call was dispatched', facts.cancelHint));
    case 'judging':
    case 'deciding':
      // In a dependency-aware plan the turn cancels a call whose alternative won, also while it waits for a human.
      if (!turn.schedule || failure !== 'cancelled') return { type: 'rethrow' };
      return close(row, closedOutput(row.request, 'cancelled', lost ?? 'the call was cancelled while it waited for confirmation', facts.cancelHint));
    case 'awaiting_slot':
      if (failure !== 'cancelled') return { type: 'rethrow' };
      return close(row, closedOutput(row.request, 'cancelled', lost ?? 'the call was cancelled while it waited to be dispatched', facts.cancelHint));
    default:
      return { type: 'rethrow' };
  }
}

/** After the safe point: operators' modifications, blocks, the arguments, then confirmation if needed. */
function checked(row: CallRow, queued: readonly QueuedIntervention[], facts: TurnFacts): CallAction {
  const modified = modifiedCall(row.request, queued, facts.tools);
  const emit = modified.events;
  if (modified.outcome.type === 'closed') return close(row, modified.outcome.output, emit);
  row.request = modified.outcome.request;
  const name = row.request.name;
  const blocked = facts.blockReason(name);
  if (blocked) return close(row, closedOutput(row.request, 'rejected', `tool ${name} is blocked: ${blocked}`, { reason: 'tool_unavailable', tool: name, message: blocked }), emit);
  const prepared = prepareCall(facts.tools, row.request);
  // Only calls that are ready to run (valid, not blocked) are presented for confirmation.
  const confirmation = prepared.type === 'dispatch' ? confirmationOf(prepared.tool, prepared.args, facts.confirmation) : { type: 'run' as const };
  if (prepared.type === 'dispatch' && confirmation.type === 'ruled') {
    // Decided by the run's approval rules, recorded as a person's decision would be.
    const { verdict } = confirmation;
    const outcome = decisionOutcome(prepared, ruledDecision(row.request.toolCallId, verdict), facts.tools);
    return confirmed(row, outcome.next, [...emit, outcome.event], facts);
  }
  if (prepared.type === 'dispatch' && confirmation.type === 'judge') {
    if (facts.turnCancelled) return close(row, closedOutput(row.request, 'cancelled', 'not run: its turn was cancelled before this call was dispatched', facts.cancelHint), emit);
    row.phase = 'judging';
    row.prepared = prepared;
    row.judging = confirmation.verdict;
    return { type: 'judge', verdict: confirmation.verdict, emit };
  }
  if (prepared.type === 'dispatch' && confirmation.type === 'ask') {
    // The turn was cancelled (time budget) before this call's turn came: no approval can matter now.
    if (facts.turnCancelled) return close(row, closedOutput(row.request, 'cancelled', 'not run: its turn was cancelled before this call was dispatched', facts.cancelHint), emit);
    row.phase = 'deciding';
    row.prepared = prepared;
    return { type: 'ask', asked: false, emit };
  }
  return confirmed(row, prepared, emit, facts);
}

/** What a judge's answer makes of a call: its decision, or a person is asked (an escalation). */
function judged(row: CallRow, judgement: ApprovalJudgement | { readonly failed: string }, facts: TurnFacts): CallAction {
  const prepared = row.prepared!;
  const { decision, event } = judgedCall(row.request.toolCallId, row.judging!, judgement);
  row.judging = undefined;
  if (!decision) {
    row.phase = 'deciding';
    return { type: 'ask', asked: false, emit: [event] };
  }
  const outcome = decisionOutcome(prepared, decision, facts.tools);
  return confirmed(row, outcome.next, [event, outcome.event], facts);
}

/** A call that waited for its decision when the previous execution continued as new: it waits on, not asked again. */
function waitingAgain(row: CallRow, facts: TurnFacts): CallAction {
  const prepared = prepareCall(facts.tools, row.request);
  if (prepared.type !== 'dispatch') return refused(row, prepared.output, none, true);
  row.phase = 'deciding';
  row.prepared = prepared;
  return { type: 'ask', asked: true, emit: none };
}

/** What a human's decision (or none: the run ended first) makes of a call that waited for it: recorded now, applied at `decision_taken`. */
function decided(row: CallRow, decision: ParsedCallDecision | undefined, facts: TurnFacts): CallAction {
  const prepared = row.prepared!;
  if (!decision) {
    row.decided = { type: 'refused', output: closedOutput(prepared.request, 'cancelled', 'the run ended while this call waited for confirmation') };
    return { type: 'decision', emit: none };
  }
  const outcome = decisionOutcome(prepared, decision, facts.tools);
  row.decided = deniedChange(decision, outcome.next, facts.confirmation);
  return { type: 'decision', emit: [outcome.event] };
}

function refused(row: CallRow, output: ToolOutput, emit: readonly RunEventDraft[], withdraw = false): CallAction {
  const error = output.error?.type;
  const logged = error === 'invalid_arguments' || error === 'tool_unknown' ? [...emit, { type: 'tool_call', turn: row.request.turn, toolCallId: row.request.toolCallId, name: output.name, args: output.args } as const] : emit;
  return close(row, output, logged, withdraw);
}

/** A call confirmed (or needing no confirmation): refused, or held while paused, then given a slot. */
function confirmed(row: CallRow, prepared: PreparedCall, emit: readonly RunEventDraft[], facts: TurnFacts): CallAction {
  if (prepared.type === 'refused') return refused(row, prepared.output, emit);
  row.request = prepared.request;
  row.prepared = prepared;
  // A call approved while the run is paused (or pausing) starts only after resume.
  if (facts.pauseRequested) {
    row.phase = 'held';
    return { type: 'hold', emit };
  }
  return slot(row, prepared, emit, facts);
}

/** A slot under the policy's concurrency limit: dispatch now, or wait for one (every waiter checks again when one frees). */
function slot(row: CallRow, prepared: DispatchableCall, emit: readonly RunEventDraft[], facts: TurnFacts): CallAction {
  const limit = facts.concurrencyLimit;
  if (limit !== undefined && facts.inFlight >= limit) {
    row.phase = 'awaiting_slot';
    return { type: 'wait_slot', emit };
  }
  row.phase = 'in_flight';
  return { type: 'dispatch', prepared, emit };
}

/**
 * A call's output before it is recorded, in the step that ends it: in a dependency-aware plan a
 * late alternative's success becomes an output conflict (see settleAlternative).
 */
export function settledOutput(turn: ToolTurnState, row: CallRow, output: ToolOutput): ToolOutput {
  row.phase = 'ended';
  return turn.schedule ? settleAlternative(turn.schedule, row.planned, output) : output;
}

/** Why the turn cancelled a call of a dependency-aware plan (its alternative won), once it did. */
export function cancelMessageOf(turn: ToolTurnState, row: CallRow): string | undefined {
  return turn.schedule ? lostMessage(turn.schedule, row.planned) : undefined;
}
