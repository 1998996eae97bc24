import { z } from 'zod';
import { defineTool, type ToolOutput, type ToolRequest } from '../../contracts';
import type { CallAction, CallEvent, CallRow, CarriedCalls, ToolTurnState, TurnFacts } from '../../workflows/calls/turn-machine';
import { newTurn, settledOutput, stepCall } from '../../workflows/calls/turn-machine';
import { okOutput } from '../../workflows/kernel/outputs';

const pay = defineTool({ name: 'pay', description: 'd', input: z.object({ amount: z.number() }), requiresConfirmation: (args) => (args as { amount: number }).amount > 100 });
const note = defineTool({ name: 'note', description: 'd', input: z.object({ text: z.string() }) });

const req = (id: string, name: string, args: unknown): ToolRequest => ({ toolCallId: id, name, args: args as never, turn: 2 });

/** The run as a test states it: every fact the machine reads, plain values. */
function factsOf(over: Partial<Omit<TurnFacts, 'blockReason'>> & { blocked?: Record<string, string> } = {}): TurnFacts {
  const { blocked = {}, ...rest } = over;
  return {
    turn: 2,
    tools: [pay, note],
    blockReason: (tool) => blocked[tool],
    confirmation: { confirmation: undefined, alwaysApproved: new Set(), agent: 'a' },
    pauseRequested: false,
    turnCancelled: false,
    cancelHint: undefined,
    maxToolCalls: 10,
    concurrencyLimit: undefined,
    inFlight: 0,
    ...rest,
  };
}

/**
 * Drives one call through the machine with the answers a test gives to each action, as the
 * driver would: returns the actions in order (their type, and what they carry that matters).
 */
function drive(turn: ToolTurnState, row: CallRow, answers: Partial<Record<CallAction['type'], CallEvent | ((a: CallAction) => CallEvent)>>, facts = factsOf()): CallAction[] {
  const seen: CallAction[] = [];
  let action = stepCall(turn, row, { type: 'begin' }, facts);
  for (;;) {
    seen.push(action);
    const answer = action.type in answers ? answers[action.type] : defaults[action.type];
    if (!answer) return seen;
    const event = typeof answer === 'function' ? answer(action) : answer;
    action = stepCall(turn, row, event, facts);
  }
}

const defaults: Partial<Record<CallAction['type'], CallEvent>> = {
  claim_early: { type: 'not_early' },
  safe_point: { type: 'safe_point', action: undefined },
  take_queued: { type: 'queued', queued: [] },
};

const one = (r: ToolRequest, options: { allowed?: number; parallel?: boolean; carried?: CarriedCalls } = {}) => {
  const turn = newTurn([r], { parallel: options.parallel ?? true, allowed: options.allowed ?? 1, ...(options.carried ? { carried: options.carried } : {}) });
  return { turn, row: turn.rows[0]! };
};

const types = (actions: CallAction[]) => actions.map((a) => a.type);
const closing = (actions: CallAction[]) => {
  const last = actions[actions.length - 1]!;
  if (last.type !== 'close') throw new Error(`ends with ${last.type}`);
  return last;
};

describe('the turn machine: one call, driven by events alone (stepCall in workflows/calls/turn-machine.ts)', () => {
  it('a plain call: early claim, safe point, the operators\' queue, then dispatch with the arguments as parsed', () => {
    const { turn, row } = one(req('c1', 'note', { text: 'hi' }));
    const actions = drive(turn, row, {});
    expect(types(actions)).toEqual(['claim_early', 'safe_point', 'take_queued', 'dispatch']);
    expect(actions[1]).toEqual({ type: 'safe_point', event: { point: 'before_tool', turn: 2, call: row.request } });
    expect(row.phase).toBe('in_flight');
    // The activity's output settles the row.
    expect(settledOutput(turn, row, okOutput(row.request, { resultBytes: 1, telemetry: { durationMs: 1 } })).status).toBe('ok');
    expect(row.phase).toBe('ended');
  });

  it('over the tool-call cap: answered tool_cap, no safe point', () => {
    const { turn, row } = one(req('c1', 'note', { text: 'x' }), { allowed: 0 });
    const actions = drive(turn, row, {}, factsOf({ maxToolCalls: 3 }));
    expect(types(actions)).toEqual(['claim_early', 'close']);
    expect(closing(actions).output.error).toEqual({ type: 'tool_cap', message: 'not run: the tool-call cap of 3 is reached' });
  });

  it('the before_tool hook blocks the call, or edits its arguments before the operators\' edits apply', () => {
    const blocked = one(req('c1', 'note', { text: 'x' }));
    const b = drive(blocked.turn, blocked.row, { safe_point: { type: 'safe_point', action: { type: 'block', reason: 'no notes' } } });
    expect(closing(b).output.error).toEqual({ type: 'rejected', message: 'blocked by agent hook: no notes' });

    const edited = one(req('c2', 'note', { text: 'x' }));
    const e = drive(edited.turn, edited.row, { safe_point: { type: 'safe_point', action: { type: 'edit_args', args: { text: 'y' } } } });
    expect(types(e)).toEqual(['claim_early', 'safe_point', 'take_queued', 'dispatch']);
    expect(edited.row.request.args).toEqual({ text: 'y' });
  });

  it('an operator\'s drop closes the call with its events; an edit runs it edited', () => {
    const dropped = one(req('c1', 'note', { text: 'x' }));
    const d = drive(dropped.turn, dropped.row, { take_queued: { type: 'queued', queued: [{ id: 7, intervention: { kind: 'drop_call', toolCallId: 'c1', reason: 'dup' } }] as never } });
    const close = closing(d);
    expect(close.output.error?.message).toBe('dropped by operator: dup');
    expect(close.emit.map((ev) => ev.type)).toEqual(['intervention_applied']);

    const edited = one(req('c2', 'note', { text: 'x' }));
    const e = drive(edited.turn, edited.row, { take_queued: { type: 'queued', queued: [{ id: 8, intervention: { kind: 'edit_call', toolCallId: 'c2', args: { text: 'z' } } }] as never } });
    expect(e[e.length - 1]).toMatchObject({ type: 'dispatch', prepared: { request: { args: { text: 'z' } } }, emit: [{ type: 'intervention_applied', id: 8 }] });
  });

  it('a blocked tool and bad arguments close the call before any approval; bad arguments log the call', () => {
    const blocked = one(req('c1', 'note', { text: 'x' }));
    const b = closing(drive(blocked.turn, blocked.row, {}, factsOf({ blocked: { note: 'maintenance' } })));
    expect(b.output.error?.message).toBe('tool note is blocked: maintenance');
    expect(b.output.retryHint).toMatchObject({ reason: 'tool_unavailable', tool: 'note' });

    const invalid = one(req('c2', 'pay', { amount: 'lots' }));
    const i = closing(drive(invalid.turn, invalid.row, {}));
    expect(i.output.error?.type).toBe('invalid_arguments');
    expect(i.emit.map((ev) => ev.type)).toEqual(['tool_call']);
  });

  it('a call that needs confirmation: asked, then run as decided (approve, reject, edit, or no decision)', () => {
    const decide = (decision: CallEvent) => {
      const { turn, row } = one(req('c1', 'pay', { amount: 500 }));
      const actions = drive(turn, row, { ask: decision, decision: { type: 'decision_taken' } });
      return { actions, row };
    };
    const approved = decide({ type: 'decided', decision: { decision: 'approve', always: false } as never });
    expect(types(approved.actions)).toEqual(['claim_early', 'safe_point', 'take_queued', 'ask', 'decision', 'dispatch']);
    expect(approved.actions[3]).toEqual({ type: 'ask', asked: false, emit: [] });
    expect((approved.actions[4] as Extract<CallAction, { type: 'decision' }>).emit).toMatchObject([{ type: 'approval_decided', decision: 'approve' }]);

    const rejected = decide({ type: 'decided', decision: { decision: 'reject', reason: 'too much' } as never });
    expect(closing(rejected.actions).output.error).toEqual({ type: 'rejected', message: 'rejected by a human: too much' });

    const edited = decide({ type: 'decided', decision: { decision: 'edit', args: { amount: 50 } } as never });
    expect(edited.actions[edited.actions.length - 1]).toMatchObject({ type: 'dispatch', prepared: { args: { amount: 50 } } });

    const none = decide({ type: 'decided', decision: undefined });
    expect(closing(none.actions).output.error).toEqual({ type: 'cancelled', message: 'the run ended while this call waited for confirmation' });
  });

  it('approval rules decide before a person is asked: allow runs a call that would ask, deny refuses any call, ask asks for one that would not', () => {
    const rules = {
      version: 'v3',
      rules: [
        { id: 'small', effect: 'allow' as const, tools: ['pay'], args: [{ path: 'amount', op: 'lte' as const, value: 500 }] },
        { id: 'huge', effect: 'deny' as const, tools: ['pay'], args: [{ path: 'amount', op: 'gt' as const, value: 10_000 }], reason: 'over the limit' },
        { id: 'notes', effect: 'ask' as const, tools: ['note'] },
      ],
    };
    const facts = factsOf({ confirmation: { confirmation: { all: false, tools: [], exempt: [], rules }, alwaysApproved: new Set(), agent: 'a' } });
    const allowed = one(req('c1', 'pay', { amount: 300 }));
    const actions = drive(allowed.turn, allowed.row, {}, facts);
    expect(types(actions)).toEqual(['claim_early', 'safe_point', 'take_queued', 'dispatch']);
    expect(actions[3]).toMatchObject({ emit: [{ type: 'approval_decided', toolCallId: 'c1', decision: 'approve', by: 'rules v3/small', rules: { version: 'v3', rule: 'small' } }] });

    const denied = one(req('c2', 'pay', { amount: 20_000 }));
    const refused = closing(drive(denied.turn, denied.row, {}, facts));
    expect(refused.output.error).toEqual({ type: 'rejected', message: 'denied by approval rule huge (rules v3): over the limit' });
    expect(refused.emit).toEqual([expect.objectContaining({ type: 'approval_decided', decision: 'reject', rules: { version: 'v3', rule: 'huge' } })]);

    // No rule matches: the tool's own rule asks.
    const unmatched = one(req('c3', 'pay', { amount: 5_000 }));
    expect(types(drive(unmatched.turn, unmatched.row, { ask: undefined }, facts)).at(-1)).toBe('ask');
    const asked = one(req('c4', 'note', { text: 'x' }));
    expect(types(drive(asked.turn, asked.row, { ask: undefined }, facts)).at(-1)).toBe('ask');
  });

  it('a judge rule: the machine asks the judge, then runs or refuses the call on a sure verdict and asks a person otherwise', () => {
    const rules = { version: 'v1', rules: [{ id: 'j', effect: 'judge' as const, tools: ['note'], judge: { evaluator: 'e', minConfidence: 0.5, timeoutMs: 1_000 } }] };
    const facts = factsOf({ confirmation: { confirmation: { all: false, tools: [], exempt: [], rules }, alwaysApproved: new Set(), agent: 'a' } });
    const run = (judgement: Extract<CallEvent, { type: 'judged' }>['judgement']) => {
      const { turn, row } = one(req('c1', 'note', { text: 'x' }));
      return drive(turn, row, { judge: { type: 'judged', judgement }, ask: undefined }, facts);
    };
    const sure = run({ verdict: 'approve', confidence: 0.8 });
    expect(types(sure)).toEqual(['claim_early', 'safe_point', 'take_queued', 'judge', 'dispatch']);
    expect(sure[4]).toMatchObject({ emit: [{ type: 'approval_judged', verdict: 'approve', escalated: false }, { type: 'approval_decided', decision: 'approve', by: 'judge e (rules v1/j)' }] });
    const refused = closing(run({ verdict: 'reject', reason: 'no' }));
    expect(refused.output.error?.message).toBe('rejected by judge e (approval rule j, rules v1): no');
    for (const judgement of [{ verdict: 'approve' as const, confidence: 0.1 }, { verdict: 'escalate' as const }, { failed: 'timeout' }]) {
      const escalated = run(judgement);
      expect(types(escalated).at(-1)).toBe('ask');
      expect(escalated.at(-1)).toMatchObject({ asked: false, emit: [{ type: 'approval_judged', escalated: true }] });
    }
    // A human's "always" for the tool stands above the judge.
    const always = factsOf({ confirmation: { confirmation: { all: false, tools: [], exempt: [], rules }, alwaysApproved: new Set(['note']), agent: 'a' } });
    const { turn, row } = one(req('c2', 'note', { text: 'x' }));
    expect(types(drive(turn, row, {}, always)).at(-1)).toBe('dispatch');
  });

  it('a turn cancelled before a call that needs confirmation answers it cancelled, without asking', () => {
    const { turn, row } = one(req('c1', 'pay', { amount: 500 }));
    const hint = { reason: 'timeout' as const, message: 'budget' };
    const close = closing(drive(turn, row, {}, factsOf({ turnCancelled: true, cancelHint: hint })));
    expect(close.output.error?.message).toBe('not run: its turn was cancelled before this call was dispatched');
    expect(close.output.retryHint).toEqual(hint);
  });

  it('a pause holds a ready call; a full concurrency limit makes it wait for a slot', () => {
    const held = one(req('c1', 'note', { text: 'x' }));
    const h = drive(held.turn, held.row, { hold: { type: 'resumed' } }, factsOf({ pauseRequested: true }));
    // Still paused when resumed? The facts say so, but a resumed call goes on to its slot.
    expect(types(h)).toEqual(['claim_early', 'safe_point', 'take_queued', 'hold', 'dispatch']);

    const full = one(req('c2', 'note', { text: 'x' }));
    const busy = factsOf({ concurrencyLimit: 2, inFlight: 2 });
    const w = drive(full.turn, full.row, {}, busy);
    expect(types(w)).toEqual(['claim_early', 'safe_point', 'take_queued', 'wait_slot']);
    expect(stepCall(full.turn, full.row, { type: 'slot_freed' }, busy).type).toBe('wait_slot');
    expect(stepCall(full.turn, full.row, { type: 'slot_freed' }, factsOf({ concurrencyLimit: 2, inFlight: 1 })).type).toBe('dispatch');
  });

  it('a wait that fails: a kill or cancellation answers the call where that is the call\'s to answer; other errors fail the turn', () => {
    const atSafePoint = () => {
      const { turn, row } = one(req('c1', 'note', { text: 'x' }));
      drive(turn, row, { safe_point: undefined as never });
      return { turn, row };
    };
    const killed = atSafePoint();
    expect(stepCall(killed.turn, killed.row, { type: 'failed', failure: 'terminated' }, factsOf())).toMatchObject({ type: 'close', output: { error: { message: 'the run ended before this call was dispatched' } } });
    const broken = atSafePoint();
    expect(stepCall(broken.turn, broken.row, { type: 'failed', failure: 'other' }, factsOf()).type).toBe('rethrow');

    // Waiting for a decision in a flat turn: a cancellation is the turn's (it fails it).
    const asking = one(req('c2', 'pay', { amount: 500 }));
    drive(asking.turn, asking.row, { ask: undefined as never });
    expect(stepCall(asking.turn, asking.row, { type: 'failed', failure: 'cancelled' }, factsOf()).type).toBe('rethrow');

    // Waiting for a slot: a cancellation answers the call.
    const waiting = one(req('c3', 'note', { text: 'x' }));
    drive(waiting.turn, waiting.row, {}, factsOf({ concurrencyLimit: 1, inFlight: 1 }));
    expect(stepCall(waiting.turn, waiting.row, { type: 'failed', failure: 'cancelled' }, factsOf())).toMatchObject({ type: 'close', output: { error: { message: 'the call was cancelled while it waited to be dispatched' } } });
  });

  it('a turn carried across continue-as-new: ended calls answer as recorded, waiting calls wait again without being asked', () => {
    const r1 = req('c1', 'note', { text: 'x' });
    const r2 = req('c2', 'pay', { amount: 500 });
    const recorded: ToolOutput = okOutput(r1, { resultBytes: 1, telemetry: { durationMs: 3 } });
    const turn = newTurn([r1, r2], { parallel: true, allowed: 2, carried: { ended: new Map([['c1', recorded]]), waiting: new Map([['c2', r2]]) } });
    expect(stepCall(turn, turn.rows[0]!, { type: 'begin' }, factsOf())).toEqual({ type: 'close', output: recorded, record: false, emit: [] });
    expect(stepCall(turn, turn.rows[1]!, { type: 'begin' }, factsOf())).toEqual({ type: 'ask', asked: true, emit: [] });
    expect(turn.rows[1]!.phase).toBe('deciding');
  });

  it('the turn\'s cadence follows its plan: one call, parallel, sequential, or a graph', () => {
    const a = req('a', 'note', { text: 'x' });
    const b = req('b', 'note', { text: 'y' });
    expect(newTurn([a], { parallel: true, allowed: 9 }).cadence).toBe('single');
    expect(newTurn([a, b], { parallel: true, allowed: 9 }).cadence).toBe('joined');
    expect(newTurn([a, b], { parallel: false, allowed: 9 }).cadence).toBe('in_order');
    expect(newTurn([a, { ...b, dependsOn: ['a'] }], { parallel: true, allowed: 9 }).cadence).toBe('graph');
  });
});
