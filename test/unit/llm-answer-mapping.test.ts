import { z } from 'zod';
import { awaitItemSchema, planResultSchema, type PlanResult } from '../../contracts';
import {
  answerToStep,
  askClarificationTool,
  askMultipleChoiceTool,
  humanCallToAwaitItem,
  parseToolArguments,
  type AnswerContext,
  type AnswerStep,
  type ModelAnswer,
} from '../../workflows/planners/llm';

const ctx: AnswerContext = { turn: 2, humanTools: [askClarificationTool, askMultipleChoiceTool] };
const report = { name: 'report', schema: z.object({ total: z.number(), note: z.string().default('none') }) };

function answer(partial: Partial<ModelAnswer>): ModelAnswer {
  return { toolCalls: [], ...partial };
}

function plan(step: AnswerStep): PlanResult {
  if (step.type !== 'plan') throw new Error(`expected a plan, got a repair: ${step.problem}`);
  expect(planResultSchema.safeParse(step.plan).success).toBe(true);
  return step.plan;
}

describe('parseToolArguments', () => {
  it('decodes JSON, treats empty text as {}, and keeps malformed JSON as the raw string', () => {
    expect(parseToolArguments('{"symbol":"AAPL"}')).toEqual({ args: { symbol: 'AAPL' }, malformed: false });
    expect(parseToolArguments('  ')).toEqual({ args: {}, malformed: false });
    expect(parseToolArguments('{"symbol": "AAP')).toEqual({ args: '{"symbol": "AAP', malformed: true });
  });
});

describe('answerToStep', () => {
  it('maps parallel tool calls to one tool_calls plan with the model ids', () => {
    const step = answerToStep(
      answer({ toolCalls: [{ id: 'a', name: 'get_quote', arguments: '{"symbol":"AAPL"}' }, { id: 'b', name: 'get_quote', arguments: '{"symbol":"MSFT"}' }] }),
      ctx,
    );
    expect(plan(step)).toEqual({
      type: 'tool_calls',
      calls: [
        { id: 'a', name: 'get_quote', args: { symbol: 'AAPL' } },
        { id: 'b', name: 'get_quote', args: { symbol: 'MSFT' } },
      ],
    });
  });

  it('assigns call_<turn>_<index> ids when the provider gave none', () => {
    const step = answerToStep(answer({ toolCalls: [{ name: 'get_quote', arguments: '{}' }] }), ctx);
    expect(plan(step)).toMatchObject({ calls: [{ id: 'call_2_0' }] });
  });

  it('passes malformed arguments on as the raw string (the runtime answers invalid_arguments) and notes it', () => {
    const step = answerToStep(answer({ toolCalls: [{ id: 'a', name: 'get_quote', arguments: '{"symbol": ' }] }), ctx);
    const p = plan(step);
    expect(p).toMatchObject({ type: 'tool_calls', calls: [{ id: 'a', name: 'get_quote', args: '{"symbol": ' }] });
    expect(p.notes?.[0]?.labels).toMatchObject({ kind: 'malformed_arguments' });
  });

  it('keeps text sent alongside tool calls with the calls, for the transcript', () => {
    const p = plan(answerToStep(answer({ content: 'Let me check.', toolCalls: [{ id: 'a', name: 'get_quote', arguments: '{}' }] }), ctx));
    expect(p).toMatchObject({ type: 'tool_calls', text: 'Let me check.' });
    expect(p.notes).toBeUndefined();
  });

  it('maps text to a final answer', () => {
    expect(plan(answerToStep(answer({ content: 'Done.' }), ctx))).toEqual({ type: 'final', response: { text: 'Done.' } });
  });

  it('on a Finalize turn ignores tool calls and answers with the text', () => {
    const finalize = { reason: 'token_budget' as const, message: 'spent' };
    const step = answerToStep(answer({ content: 'Summary.', toolCalls: [{ id: 'a', name: 'get_quote', arguments: '{}' }] }), { ...ctx, finalize });
    expect(plan(step)).toEqual({ type: 'final', response: { text: 'Summary.' } });
  });

  it('on a Finalize turn without text explains why the run ended', () => {
    const step = answerToStep(answer({}), { ...ctx, finalize: { reason: 'tool_cap', message: 'cap reached' } });
    expect(plan(step)).toEqual({ type: 'final', response: { text: 'Run ended (tool_cap): cap reached.' } });
  });

  describe('with an output schema', () => {
    const structured: AnswerContext = { ...ctx, outputSchema: report };

    it('validates the JSON answer and returns it as structured output (schema defaults applied)', () => {
      const p = plan(answerToStep(answer({ content: '{"total": 3}' }), structured));
      expect(p).toEqual({ type: 'final', response: { text: '{"total": 3}', structured: { total: 3, note: 'none' } } });
    });

    it('asks for a repair when the answer is not JSON', () => {
      const step = answerToStep(answer({ content: 'three' }), structured);
      expect(step).toMatchObject({ type: 'repair', problem: expect.stringContaining('not valid JSON') });
    });

    it('asks for a repair naming the failing field, echoing the bad answer first', () => {
      const step = answerToStep(answer({ content: '{"total": "3"}' }), structured);
      if (step.type !== 'repair') throw new Error('expected a repair');
      expect(step.problem).toContain('total');
      expect(step.messages).toEqual([
        { role: 'assistant', content: '{"total": "3"}' },
        { role: 'user', content: expect.stringContaining('output schema "report"') },
      ]);
    });
  });

  describe('human tools', () => {
    it('maps ask_clarification to a clarification await item bound to the call', () => {
      const p = plan(answerToStep(answer({ toolCalls: [{ id: 'q1', name: 'ask_clarification', arguments: '{"question":"Which ticker?","missingFields":["symbol"]}' }] }), ctx));
      expect(p).toEqual({
        type: 'await',
        await: { items: [{ kind: 'clarification', id: 'q1', question: 'Which ticker?', missingFields: ['symbol'], toolName: 'ask_clarification', toolCallId: 'q1' }] },
      });
    });

    it('maps ask_multiple_choice to a questions item bound to the call', () => {
      const args = { title: 'Pick', questions: [{ id: 'x', prompt: 'Which?', options: [{ id: 'a', label: 'AAPL' }], allowMultiple: true }] };
      const p = plan(answerToStep(answer({ toolCalls: [{ id: 'm1', name: 'ask_multiple_choice', arguments: JSON.stringify(args) }] }), ctx));
      expect(p).toEqual({ type: 'await', await: { items: [{ kind: 'questions', id: 'm1', toolName: 'ask_multiple_choice', toolCallId: 'm1', ...args }] } });
    });

    it('asks a human first and defers other calls of the same answer, with a note', () => {
      const step = answerToStep(
        answer({ toolCalls: [{ id: 'g', name: 'get_quote', arguments: '{}' }, { id: 'q', name: 'ask_clarification', arguments: '{"question":"Sure?"}' }] }),
        ctx,
      );
      const p = plan(step);
      expect(p).toMatchObject({ type: 'await', await: { items: [{ id: 'q' }] } });
      expect(p.notes?.[0]?.labels).toMatchObject({ kind: 'deferred_calls' });
    });

    it('asks for a repair when a human tool call has invalid arguments, answering every call of the answer', () => {
      const step = answerToStep(
        answer({ toolCalls: [{ id: 'q1', name: 'ask_clarification', arguments: '{}' }, { id: 'q2', name: 'ask_clarification', arguments: '{"question":"ok?"}' }] }),
        ctx,
      );
      if (step.type !== 'repair') throw new Error('expected a repair');
      expect(step.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool']);
      expect(step.messages[1]).toMatchObject({ toolCallId: 'q1', content: expect.stringContaining('invalid_arguments') });
      expect(step.messages[2]).toMatchObject({ toolCallId: 'q2', content: expect.stringContaining('rejected') });
    });

    it('treats a human tool the agent did not enable as an ordinary (unknown) tool call', () => {
      const step = answerToStep(answer({ toolCalls: [{ id: 'q', name: 'ask_clarification', arguments: '{"question":"?"}' }] }), { ...ctx, humanTools: [] });
      expect(plan(step)).toMatchObject({ type: 'tool_calls' });
    });
  });
});

describe('humanCallToAwaitItem', () => {
  it('produces items that satisfy the await item contract', () => {
    const mapped = humanCallToAwaitItem({ id: 'q', name: 'ask_clarification', args: { question: 'Which?' } });
    if (!mapped.ok) throw new Error(mapped.message);
    expect(awaitItemSchema.parse(mapped.item)).toMatchObject({ toolCallId: 'q', toolName: 'ask_clarification' });
  });

  it('names the bad field of invalid arguments', () => {
    expect(humanCallToAwaitItem({ id: 'q', name: 'ask_multiple_choice', args: { questions: [] } })).toEqual({ ok: false, message: expect.stringContaining('questions') });
  });
});
