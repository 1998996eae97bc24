import { condition, setHandler } from '@temporalio/workflow';
import {
  answerAwaitUpdate,
  answerSignal,
  decideCallUpdate,
  decideSignal,
  pendingInputsQuery,
  eventsQuery,
  interveneSignal,
  interveneUpdate,
  killSignal,
  killUpdate,
  pauseSignal,
  earlyToolCallSignal,
  pauseUpdate,
  resumeSignal,
  resumeUpdate,
  setBudgetSignal,
  setBudgetUpdate,
  statusQuery,
  transcriptQuery,
  waitForEventsUpdate,
} from '../../contracts/definitions';
import { awaitAnswerSchema, callDecisionSchema, type ParsedAwaitAnswer, type ParsedCallDecision } from '../../contracts/hitl';
import {
  budgetChangeSchema,
  interventionSchema,
  killRequestSchema,
  pauseRequestSchema,
  resumeRequestSchema,
  waitForEventsRequestSchema,
  type InterventionReceipt,
  type ParsedIntervention,
} from '../../contracts/control';
import { describeIssues, type JsonValue } from '../../contracts/json';
import { eventsQueryArgsSchema } from '../../contracts/events';
import { earlyToolCallSchema } from '../../contracts/tools';
import { z } from 'zod';
import { builtOnce } from '../../contracts/lazy';
import { withinBytes } from './event-log';
import type { RunLoop } from './run-loop';
import type { RunState } from './run-state';
import { rejection } from './failures';
import { quoted } from '../../contracts/safe-text';

const transcriptArgsSchema = builtOnce(() => z.object({ from: z.number().int().nonnegative().default(0), to: z.number().int().nonnegative().optional() }));

interface SafeParser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/**
 * Parses a message payload. Missing payloads count as `{}` so `temporal workflow signal`
 * without `--input` works.
 *
 * @throws ApplicationFailure `invalid_payload` naming the bad field.
 */
function parse<T>(name: string, schema: SafeParser<T>, payload: unknown): T {
  const parsed = schema.safeParse(payload ?? {});
  if (!parsed.success) throw rejection(`invalid ${name} payload: ${describeIssues(parsed.error)}`, 'invalid_payload');
  return parsed.data;
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
      throw rejection(`agent ${run.agent.name} has no toolset ${quoted(intervention.toolset)}; its toolsets: ${names.join(', ')}`, 'invalid_payload');
    }
    return;
  }
  if (!isCallModification(intervention)) return;
  const id = intervention.toolCallId;
  if (run.toolOutputs.some((o) => o.toolCallId === id)) {
    throw rejection(`call ${id} has already finished; only pending calls can be changed`, 'call_finished');
  }
  const pending = run.pending.get(id);
  if (pending?.dispatched) throw rejection(`call ${id} is already running; only calls not yet dispatched can be changed`, 'call_running');
  if (!pending && !(intervention.upcoming && !run.hasPlannedCall(id))) {
    const waiting = [...run.pending.values()].filter((p) => !p.dispatched).map((p) => p.request.toolCallId);
    throw rejection(
      `call ${quoted(id)} is not planned and waiting to run (it finished, or no such call exists yet); ` +
        `calls that can be changed now: ${waiting.join(', ') || 'none'}` +
        (intervention.upcoming ? '' : '; a correction for the next planner turn (rewind) says upcoming: true'),
      'call_not_pending',
    );
  }
  if (pending && run.human.approvals.has(id)) {
    throw rejection(`call ${id} waits for a human decision; decide it instead (approve, reject, edit or replace)`, 'call_awaiting_decision');
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

function changeBudget(run: RunState, change: Record<string, number | undefined>): void {
  run.changeBudget(Object.fromEntries(Object.entries(change).filter((e): e is [string, number] => e[1] !== undefined)));
}

/**
 * Runs a signal handler, turning bad input into a `signal_rejected` event: a signal cannot
 * answer its sender, and must never crash the run.
 */
function guardedSignal(run: RunState, name: string, handle: () => void): void {
  try {
    handle();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    run.emit({ type: 'signal_rejected', signal: name, reason });
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
    throw rejection(message, input.type === 'answer' ? 'invalid_answer' : 'invalid_decision');
  }
}

function applyAnswer(run: RunState, answer: ParsedAwaitAnswer): void {
  run.human.answer(answer);
  const awaitId = run.human.open?.awaitId ?? '';
  run.emit({ type: 'await_answered', awaitId, itemId: answer.itemId, answer: answer as unknown as JsonValue });
}

/** Registers the human-in-the-loop messages: pending inputs, answers and call decisions. */
function registerHumanHandlers(run: RunState): void {
  setHandler(pendingInputsQuery, () => run.human.pending());
  setHandler(answerSignal, (payload) =>
    guardedSignal(run, 'answer', () => {
      const answer = parse('answer', awaitAnswerSchema(), payload);
      checkHuman(run, { type: 'answer', answer });
      applyAnswer(run, answer);
    }),
  );
  setHandler(decideSignal, (payload) =>
    guardedSignal(run, 'decide', () => {
      const decision = parse('decide', callDecisionSchema(), payload);
      checkHuman(run, { type: 'decision', decision });
      run.human.decide(decision);
    }),
  );
  setHandler(
    answerAwaitUpdate,
    (payload) => {
      applyAnswer(run, parse('answer', awaitAnswerSchema(), payload));
      return run.human.pending();
    },
    { validator: (payload) => checkHuman(run, { type: 'answer', answer: parse('answer', awaitAnswerSchema(), payload) }) },
  );
  setHandler(
    decideCallUpdate,
    (payload) => {
      run.human.decide(parse('decide', callDecisionSchema(), payload));
      return run.human.pending();
    },
    { validator: (payload) => checkHuman(run, { type: 'decision', decision: parse('decide', callDecisionSchema(), payload) }) },
  );
}

/** Registers the queries, signals and updates of a run. */
export function registerRunHandlers(loop: RunLoop): void {
  const run = loop.state;
  registerHumanHandlers(run);
  setHandler(statusQuery, () => run.statusReport());
  setHandler(eventsQuery, (args) => {
    const parsed = eventsQueryArgsSchema().safeParse(args ?? {});
    if (!parsed.success) throw new Error(`invalid events query arguments: ${describeIssues(parsed.error)}`);
    return run.log.page(parsed.data.afterSeq, parsed.data.limit, run.status);
  });

  setHandler(transcriptQuery, (args) => {
    const parsed = transcriptArgsSchema().safeParse(args ?? {});
    if (!parsed.success) throw new Error(`invalid transcript query arguments: ${describeIssues(parsed.error)}`);
    // Paged by bytes as well: read on from `next` (a page may hold fewer messages than asked).
    const messages = withinBytes(run.messages.slice(parsed.data.from, parsed.data.to));
    return { messages, total: run.messages.length, next: parsed.data.from + messages.length };
  });

  setHandler(pauseSignal, (payload) =>
    guardedSignal(run, 'pause', () => {
      rejectIfEnded(run, 'pause');
      loop.requestPause(parse('pause', pauseRequestSchema(), payload).reason);
    }),
  );
  setHandler(resumeSignal, (payload) =>
    guardedSignal(run, 'resume', () => {
      const { reason } = parse('resume', resumeRequestSchema(), payload);
      if (!run.control.isPauseRequested) throw new Error('the run is not paused');
      loop.resume(reason);
    }),
  );
  // Reports of the model activity (early dispatch): a late or unusable one is dropped quietly,
  // since the final answer carries every call anyway.
  setHandler(earlyToolCallSignal, (payload) => {
    const parsed = earlyToolCallSchema().safeParse(payload);
    if (parsed.success && !run.isTerminal) loop.acceptEarlyCall(parsed.data);
  });
  setHandler(killSignal, (payload) =>
    guardedSignal(run, 'kill', () => {
      rejectIfEnded(run, 'kill');
      loop.requestKill(parse('kill', killRequestSchema(), payload).reason);
    }),
  );
  setHandler(interveneSignal, (payload) =>
    guardedSignal(run, 'intervene', () => {
      rejectIfEnded(run, 'intervene');
      const intervention = parse('intervene', interventionSchema(), payload);
      validateIntervention(run, intervention);
      intervene(run, intervention);
    }),
  );
  setHandler(setBudgetSignal, (payload) =>
    guardedSignal(run, 'setBudget', () => {
      rejectIfEnded(run, 'change the budget');
      changeBudget(run, parse('setBudget', budgetChangeSchema(), payload));
    }),
  );

  setHandler(
    pauseUpdate,
    async (payload) => {
      const request = parse('pause', pauseRequestSchema(), payload);
      loop.requestPause(request.reason);
      const reached = await condition(() => run.control.isPaused || run.isTerminal || run.control.kill !== undefined, request.timeoutMs);
      if (run.isTerminal) throw rejection(`the run ended before it paused (${run.status})`, 'run_ended');
      if (run.control.kill) throw rejection(`the run is being killed (${run.control.kill.reason}) and will not pause`, 'run_ended');
      if (!reached || !run.control.pausedAt) {
        throw rejection(
          `the run did not reach a safe point within ${request.timeoutMs} ms; the pause stays requested and takes effect at the next safe point`,
          'pause_timeout',
        );
      }
      const { point, turn, historyLength } = run.control.pausedAt;
      return { status: 'paused', point, turn, historyLength };
    },
    {
      validator: (payload) => {
        parse('pause', pauseRequestSchema(), payload);
        rejectIfEnded(run, 'pause');
      },
    },
  );
  setHandler(
    resumeUpdate,
    (payload) => {
      loop.resume(parse('resume', resumeRequestSchema(), payload).reason);
      return run.statusReport();
    },
    {
      validator: (payload) => {
        parse('resume', resumeRequestSchema(), payload);
        rejectIfEnded(run, 'resume');
        if (!run.control.isPauseRequested) throw rejection('the run is not paused', 'not_paused');
      },
    },
  );
  setHandler(
    killUpdate,
    async (payload) => {
      loop.requestKill(parse('kill', killRequestSchema(), payload).reason);
      await condition(() => run.isTerminal);
      return run.statusReport();
    },
    {
      validator: (payload) => {
        parse('kill', killRequestSchema(), payload);
        rejectIfEnded(run, 'kill');
      },
    },
  );
  setHandler(interveneUpdate, (payload) => intervene(run, parse('intervene', interventionSchema(), payload)), {
    validator: (payload) => {
      rejectIfEnded(run, 'intervene');
      validateIntervention(run, parse('intervene', interventionSchema(), payload));
    },
  });
  setHandler(
    setBudgetUpdate,
    (payload) => {
      changeBudget(run, parse('setBudget', budgetChangeSchema(), payload));
      return run.cost();
    },
    {
      validator: (payload) => {
        parse('setBudget', budgetChangeSchema(), payload);
        rejectIfEnded(run, 'change the budget');
      },
    },
  );
  setHandler(
    waitForEventsUpdate,
    async (payload) => {
      const request = parse('waitForEvents', waitForEventsRequestSchema(), payload);
      await condition(() => run.log.lastSeq > request.afterSeq || run.isTerminal || loop.closing, request.timeoutMs);
      return run.log.page(request.afterSeq, request.limit, run.status);
    },
    { validator: (payload) => void parse('waitForEvents', waitForEventsRequestSchema(), payload) },
  );
}
