/**
 * What a run does for each operation of the table in contracts/operations.ts: one `check` and one
 * `apply` per operation, shared by its signal and its update (run-handlers.ts registers both), so
 * the two ways in cannot drift apart. A check throws an `ApplicationFailure` naming what is
 * wrong: the update rejects with it before anything enters history, the signal records it as a
 * `signal_rejected` event.
 */
import { condition } from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import type { PauseResult, InterventionReceipt, ParsedIntervention } from '../../contracts/control';
import type { ParsedAwaitAnswer, ParsedCallDecision, PendingInputs } from '../../contracts/hitl';
import type { CostReport, RunStatusReport } from '../../contracts/run';
import { describeIssues, type JsonValue } from '../../contracts/json';
import { echoed, echoedList, maxEchoChars, quoted } from '../../contracts/safe-text';
import type { z } from 'zod';
import type { RunOperationName, runOperationMessages } from '../../contracts/operations';
import type { RunLoop } from './run-loop';
import type { RunState } from '../state/run-state';
import { statusReport } from '../state/run-reports';
import { rejection } from '../kernel/failures';
import { DecisionRefused } from '../state/decision-refusals';
import { applyApprovalRules } from './approval-rules-change';

/** The parsed payload of an operation. */
export type OperationPayload<N extends RunOperationName> = z.output<ReturnType<(typeof runOperationMessages)[N]['payload']>>;

/** What an operation's update answers. */
export type OperationAnswer<N extends RunOperationName> = (typeof runOperationMessages)[N]['update'] extends UpdateDefinition<infer R, [unknown], string> ? R : never;

/**
 * How the run takes one operation. The signal runs `check` then `apply`; the update runs `check`
 * as its validator, then `apply` and `answer` as its handler, in one synchronous step up to the
 * first wait (so the two ways in take effect at the same point of a workflow task).
 */
export interface OperationHandling<P, Applied, Answer> {
  /** Whether the run can take it now; throws a rejection naming why not. */
  check(payload: P): void;
  /** Takes it: the signal's whole effect. */
  apply(payload: P): Applied;
  /** The update's answer, once applied: at once, or after a wait (a pause, a kill). */
  answer(applied: Applied, payload: P): Answer | Promise<Answer>;
}

/** An operation's handling, for the table (what `apply` hands to `answer` is the entry's own business). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperationHandling<N extends RunOperationName> = OperationHandling<OperationPayload<N>, any, OperationAnswer<N>>;

/** Every operation's handling, bound to one run. */
export type RunOperationHandlers = { readonly [N in RunOperationName]: AnyOperationHandling<N> };

/** Declares one operation's handling; the identity function, for type inference. */
function handling<N extends RunOperationName, Applied = void>(h: OperationHandling<OperationPayload<N>, Applied, OperationAnswer<N>>): AnyOperationHandling<N> {
  return h;
}

function rejectIfEnded(run: RunState, operation: string): void {
  if (run.isTerminal || run.control.kill) {
    throw rejection(`cannot ${operation}: the run has ended (${run.status})`, 'run_ended');
  }
}

/** Whether an intervention edits or drops a call. */
function isCallModification(intervention: ParsedIntervention): intervention is Extract<ParsedIntervention, { kind: 'edit_call' | 'drop_call' }> {
  return intervention.kind === 'edit_call' || intervention.kind === 'drop_call';
}

/**
 * Validates an intervention against what the run knows now. An edit or drop must address a call
 * that is planned and waiting to run: one that finished, runs, waits for a human decision or does
 * not exist yet is refused with the reason (never queued for a future call).
 */
function validateIntervention(run: RunState, intervention: ParsedIntervention): void {
  if (intervention.kind === 'refresh_tools') {
    const names = run.toolsets.definitions.map((d) => d.name);
    if (!names.length) throw rejection(`agent ${run.agent.name} has no MCP toolsets to refresh`, 'invalid_payload');
    if (intervention.toolset !== undefined && !names.includes(intervention.toolset)) {
      throw rejection(`agent ${run.agent.name} has no toolset ${quoted(intervention.toolset, maxEchoChars)}; its toolsets: ${names.join(', ')}`, 'invalid_payload');
    }
    return;
  }
  if (!isCallModification(intervention)) return;
  const id = intervention.toolCallId;
  if (run.toolOutputs.some((o) => o.toolCallId === id)) {
    throw rejection(`call ${echoed(id)} has already finished; only pending calls can be changed`, 'call_finished');
  }
  const pending = run.pending.get(id);
  if (pending?.dispatched) throw rejection(`call ${echoed(id)} is already running; only calls not yet dispatched can be changed`, 'call_running');
  if (!pending && !(intervention.upcoming && !run.callIds.has(id))) {
    const waiting = [...run.pending.values()].filter((p) => !p.dispatched).map((p) => p.request.toolCallId);
    throw rejection(
      `call ${quoted(id, maxEchoChars)} is not planned and waiting to run (it finished, or no such call exists yet); ` +
        `calls that can be changed now: ${echoedList(waiting) || 'none'}` +
        (intervention.upcoming ? '' : '; a correction for the next planner turn (rewind) says upcoming: true'),
      'call_not_pending',
    );
  }
  if (pending && run.human.approvals.has(id)) {
    throw rejection(`call ${echoed(id)} waits for a human decision; decide it instead (approve, reject, edit or replace)`, 'call_awaiting_decision');
  }
  if (pending && intervention.kind === 'edit_call') {
    const tool = run.tools().find((t) => t.name === pending.request.name);
    const check = tool?.input.safeParse(intervention.args);
    if (check && !check.success) {
      throw rejection(`edited arguments do not match ${tool?.name}: ${describeIssues(check.error)}`, 'invalid_payload');
    }
  }
}

/** Applies an intervention: policy changes act at once, modifications wait for their safe point. */
function intervene(run: RunState, intervention: ParsedIntervention): InterventionReceipt {
  const id = run.control.allocateId();
  const applied = (detail: string): InterventionReceipt => {
    run.emit({ type: 'intervention_applied', id, source: 'operator', kind: intervention.kind, detail });
    return { id, kind: intervention.kind, state: 'applied' };
  };
  switch (intervention.kind) {
    case 'block_tool':
      run.control.block(intervention.name, intervention.reason);
      return applied(`tool ${intervention.name} blocked: ${intervention.reason}`);
    case 'unblock_tool':
      run.control.unblock(intervention.name);
      return applied(`tool ${intervention.name} unblocked`);
    case 'set_breakpoint':
      run.control.setBreakpoint(intervention.point, intervention.tool, intervention.once);
      return applied(`breakpoint set at ${intervention.point}${intervention.tool ? ` for ${intervention.tool}` : ''}`);
    case 'refresh_tools':
      run.toolsets.request(intervention.toolset);
      return applied(`tool list refresh requested for ${intervention.toolset ? `toolset ${intervention.toolset}` : 'every toolset'}; it happens before the next planner turn`);
    case 'clear_breakpoint':
      run.control.clearBreakpoint(intervention.point, intervention.tool);
      return applied(`breakpoint cleared at ${intervention.point}${intervention.tool ? ` for ${intervention.tool}` : ''}`);
    default:
      run.control.enqueue({ id, intervention });
      run.emit({ type: 'intervention_queued', id, kind: intervention.kind });
      return { id, kind: intervention.kind, state: 'queued' };
  }
}

/**
 * Checks an answer or decision against the run, as a business error the caller sees.
 *
 * @throws ApplicationFailure `invalid_answer` / `invalid_decision` naming what is wrong.
 */
function checkHuman(run: RunState, input: { type: 'answer'; answer: ParsedAwaitAnswer } | { type: 'decision'; decision: ParsedCallDecision }): void {
  rejectIfEnded(run, input.type === 'answer' ? 'answer' : 'decide');
  try {
    if (input.type === 'answer') run.human.validateAnswer(input.answer, run.tools());
    else run.human.validateDecision(input.decision, run.tools());
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof DecisionRefused) throw rejection(message, err.type);
    throw rejection(message, input.type === 'answer' ? 'invalid_answer' : 'invalid_decision');
  }
}

/** The run's handling of every operation. */
export function runOperationHandlers(loop: RunLoop): RunOperationHandlers {
  const run = loop.state;
  return {
    pause: handling<'pause'>({
      check: () => rejectIfEnded(run, 'pause'),
      apply: ({ reason }) => loop.safePoints.requestPause(reason),
      // Answers once the run holds at a safe point (or could not reach one in time).
      answer: async (_, { timeoutMs }): Promise<PauseResult> => {
        const reached = await condition(() => run.control.isPaused || run.isTerminal || run.control.kill !== undefined || loop.continuation.continuingWhileWaiting, timeoutMs);
        if (loop.continuation.continuingWhileWaiting && !run.control.isPaused) {
          // It cannot answer from the next execution: it answers now, and the pause is carried.
          throw rejection('the run continues as new while it waits for people; the pause stays requested and takes effect at its next safe point', 'pause_timeout');
        }
        if (run.isTerminal) throw rejection(`the run ended before it paused (${run.status})`, 'run_ended');
        if (run.control.kill) throw rejection(`the run is being killed (${run.control.kill.reason}) and will not pause`, 'run_ended');
        if (!reached || !run.control.pausedAt) {
          throw rejection(
            `the run did not reach a safe point within ${timeoutMs} ms; the pause stays requested and takes effect at the next safe point`,
            'pause_timeout',
          );
        }
        const { point, turn, historyLength } = run.control.pausedAt;
        return { status: 'paused', point, turn, historyLength };
      },
    }),
    resume: handling<'resume'>({
      check: () => {
        rejectIfEnded(run, 'resume');
        if (!run.control.isPauseRequested) throw rejection('the run is not paused', 'not_paused');
      },
      apply: ({ reason }) => loop.safePoints.resume(reason),
      answer: () => statusReport(run),
    }),
    kill: handling<'kill'>({
      check: () => rejectIfEnded(run, 'kill'),
      apply: ({ reason }) => loop.requestKill(reason),
      // Answers once the run has ended.
      answer: async (): Promise<RunStatusReport> => {
        await condition(() => run.isTerminal);
        return statusReport(run);
      },
    }),
    intervene: handling<'intervene', InterventionReceipt>({
      check: (intervention) => {
        rejectIfEnded(run, 'intervene');
        validateIntervention(run, intervention);
      },
      apply: (intervention) => intervene(run, intervention),
      answer: (receipt) => receipt,
    }),
    setBudget: handling<'setBudget'>({
      check: () => rejectIfEnded(run, 'change the budget'),
      apply: (change) => run.changeBudget(Object.fromEntries(Object.entries(change).filter((e): e is [string, number] => e[1] !== undefined))),
      answer: (): CostReport => run.cost(),
    }),
    setApprovalRules: handling<'setApprovalRules'>({
      check: () => rejectIfEnded(run, 'change the approval rules'),
      apply: (rules) => applyApprovalRules(run, rules),
      answer: (): PendingInputs => run.human.pending(),
    }),
    decide: handling<'decide'>({
      check: (decision) => checkHuman(run, { type: 'decision', decision }),
      apply: (decision) => run.human.decide(decision),
      answer: (): PendingInputs => run.human.pending(),
    }),
    answer: handling<'answer'>({
      check: (answer) => checkHuman(run, { type: 'answer', answer }),
      apply: (answer) => {
        run.human.answer(answer);
        const awaitId = run.human.open?.awaitId ?? '';
        run.emit({ type: 'await_answered', awaitId, itemId: answer.itemId, answer: answer as unknown as JsonValue });
      },
      answer: (): PendingInputs => run.human.pending(),
    }),
  };
}
