import { z } from 'zod';
import { defineTool, type ToolRequest } from '../../contracts';
import { decidedCall, deniedChange, modifiedCall, needsConfirmation, prepareCall } from '../../workflows/calls/call-rules';

const pay = defineTool({ name: 'pay', description: 'd', input: z.object({ amount: z.number() }), requiresConfirmation: (args) => (args as { amount: number }).amount > 100 });
const note = defineTool({ name: 'note', description: 'd', input: z.object({ text: z.string() }) });
const tools = [pay, note];
const request: ToolRequest = { toolCallId: 'c1', name: 'pay', args: { amount: 5 }, turn: 1 };

describe('modifiedCall: operators\' queued edits and drops, in order', () => {
  it('an edit that fits the tool changes the arguments; one that does not is rejected and the next is tried', () => {
    const { outcome, events } = modifiedCall(
      request,
      [
        { id: 1, intervention: { kind: 'edit_call', toolCallId: 'c1', args: { amount: 'lots' } } },
        { id: 2, intervention: { kind: 'edit_call', toolCallId: 'c1', args: { amount: 7 } } },
      ] as never,
      tools,
    );
    expect(outcome).toEqual({ type: 'run', request: { ...request, args: { amount: 7 } } });
    expect(events.map((e) => [e.type, 'id' in e ? e.id : undefined])).toEqual([
      ['intervention_rejected', 1],
      ['intervention_applied', 2],
    ]);
  });

  it('a drop closes the call as rejected, with the reason, and ends the list', () => {
    const { outcome, events } = modifiedCall(
      request,
      [
        { id: 3, intervention: { kind: 'drop_call', toolCallId: 'c1', reason: 'not today' } },
        { id: 4, intervention: { kind: 'edit_call', toolCallId: 'c1', args: { amount: 9 } } },
      ] as never,
      tools,
    );
    expect(outcome).toMatchObject({ type: 'closed', output: { status: 'error', error: { type: 'rejected', message: 'dropped by operator: not today' } } });
    expect(events).toHaveLength(1);
  });

  it('nothing queued: the call runs as planned, no event', () => {
    expect(modifiedCall(request, [], tools)).toEqual({ outcome: { type: 'run', request }, events: [] });
  });
});

describe('needsConfirmation', () => {
  const run = { confirmation: undefined, alwaysApproved: new Set<string>(), agent: 'a' };

  it("follows the tool's own rule over its arguments", () => {
    expect(needsConfirmation(pay, { amount: 5 }, run)).toBe(false);
    expect(needsConfirmation(pay, { amount: 500 }, run)).toBe(true);
  });

  it("the run's confirmation names tools (or all); exempt tools and tools approved for good never ask", () => {
    expect(needsConfirmation(note, { text: 'x' }, { ...run, confirmation: { tools: ['note'] } })).toBe(true);
    expect(needsConfirmation(note, { text: 'x' }, { ...run, confirmation: { all: true } })).toBe(true);
    expect(needsConfirmation(pay, { amount: 500 }, { ...run, confirmation: { all: true, exempt: ['pay'] } })).toBe(false);
    expect(needsConfirmation(pay, { amount: 500 }, { ...run, alwaysApproved: new Set(['pay']) })).toBe(false);
  });

  it('a rule that throws is the agent\'s bug: hook_failed, naming agent and tool', () => {
    const broken = defineTool({ name: 'broken', description: 'd', input: z.object({}), requiresConfirmation: () => { throw new Error('boom'); } });
    expect(() => needsConfirmation(broken, {}, run)).toThrow(/agent a: requiresConfirmation of tool broken threw: boom/);
  });
});

describe('decidedCall: what a human decision makes of a waiting call', () => {
  const prepared = prepareCall(tools, { ...request, args: { amount: 500 } });
  if (prepared.type !== 'dispatch') throw new Error('expected dispatch');

  it('approve runs it as asked', () => {
    const { event, next } = decidedCall(prepared, { toolCallId: 'c1', decision: 'approve', always: false, by: 'ann' } as never, tools);
    expect(event).toEqual({ type: 'approval_decided', toolCallId: 'c1', by: 'ann', decision: 'approve', always: false });
    expect(next).toBe(prepared);
  });

  it('reject closes it with the reason', () => {
    const { next } = decidedCall(prepared, { toolCallId: 'c1', decision: 'reject', reason: 'too much' } as never, tools);
    expect(next).toMatchObject({ type: 'refused', output: { error: { type: 'rejected', message: 'rejected by a human: too much' } } });
  });

  it('edit and replace are checked again against the tools; the event keeps the original and the update', () => {
    const edited = decidedCall(prepared, { toolCallId: 'c1', decision: 'edit', args: { amount: 50 } } as never, tools);
    expect(edited.next).toMatchObject({ type: 'dispatch', request: { name: 'pay', args: { amount: 50 } } });
    expect(edited.event).toMatchObject({ original: { name: 'pay', args: { amount: 500 } }, updated: { name: 'pay', args: { amount: 50 } } });
    const replaced = decidedCall(prepared, { toolCallId: 'c1', decision: 'replace', name: 'note', args: { text: 1 } } as never, tools);
    expect(replaced.next).toMatchObject({ type: 'refused', output: { error: { type: 'invalid_arguments' } } });
  });
});

describe("deniedChange: a person's edit or replace is ruled on by the run's deny rules", () => {
  const rules = {
    version: 'v1',
    rules: [
      { id: 'big', effect: 'deny' as const, tools: ['pay'], args: [{ path: 'amount', op: 'gte' as const, value: 1000 }], reason: 'too much' },
      { id: 'notes', effect: 'allow' as const, tools: ['note'] },
    ],
  };
  const facts = { confirmation: { all: false, tools: [], exempt: [], rules }, alwaysApproved: new Set<string>(), agent: 'a' };
  const prepared = (name: string, args: ToolRequest['args']) => prepareCall(tools, { ...request, name, args });

  it('refuses an edit into what a deny rule matches, with its reason', () => {
    expect(deniedChange({ decision: 'edit', toolCallId: 'c1', args: { amount: 5000 } }, prepared('pay', { amount: 5000 }), facts)).toMatchObject({
      type: 'refused',
      output: { toolCallId: 'c1', name: 'pay', status: 'error', error: { type: 'rejected', message: 'denied by approval rule big (rules v1): too much' } },
    });
  });

  it('refuses a replacement a deny rule matches', () => {
    expect(deniedChange({ decision: 'replace', toolCallId: 'c1', name: 'pay', args: { amount: 1000 } }, prepared('pay', { amount: 1000 }), facts)).toMatchObject({ type: 'refused' });
  });

  it('lets through a change no deny rule matches, any approval, and a call already refused', () => {
    const small = prepared('pay', { amount: 5 });
    expect(deniedChange({ decision: 'edit', toolCallId: 'c1', args: { amount: 5 } }, small, facts)).toBe(small);
    const big = prepared('pay', { amount: 5000 });
    expect(deniedChange({ decision: 'approve', toolCallId: 'c1', always: false }, big, facts)).toBe(big);
    const refused = { type: 'refused' as const, output: { toolCallId: 'c1', name: 'pay', args: {}, status: 'error' as const } } as never;
    expect(deniedChange({ decision: 'edit', toolCallId: 'c1', args: { amount: 5000 } }, refused, facts)).toBe(refused);
    expect(deniedChange({ decision: 'edit', toolCallId: 'c1', args: { amount: 5000 } }, big, { ...facts, confirmation: undefined })).toBe(big);
  });
});
