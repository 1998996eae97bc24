import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type { JsonValue, Message, PlannerNote } from '../../contracts';
import { recordAgentState } from '../../workflows/run/agent-state';
import type { PlannerContext } from '../../workflows/agents/planner';
import {
  chainDigest,
  createLlmPlanner,
  defineLlmAgent,
  emptyDigest,
  modelCallInputSchema,
  type LlmPlannerConfig,
  type ModelAnswer,
  type ModelCallInput,
} from '../../workflows/planners/llm';

interface Harness {
  /** A planner context; `instructions` as the runtime rendered them for the turn. */
  ctx: (turn: number, instructions?: string) => PlannerContext;
  usage: { tokens: number; modelCalls: number; unknown: number };
  notes: PlannerNote[];
}

function harness(): Harness {
  const state: Record<string, JsonValue> = {};
  const usage = { tokens: 0, modelCalls: 0, unknown: 0 };
  const notes: PlannerNote[] = [];
  return {
    usage,
    notes,
    ctx: (turn, instructions = 'Watchlist: ["TSLA"]') => ({
      runId: 'run-1',
      workflowId: 'wf-1',
      agent: 'watchlist-llm',
      turn,
      transcriptEpoch: 0,
      state: recordAgentState(state),
      sessionState: {},
      instructions,
      emitNote: (n) => notes.push(n),
      recordModelUsage: (u) => {
        usage.tokens += u.tokens;
        usage.modelCalls += u.modelCalls;
        if (u.tokensUnknown) usage.unknown += 1;
      },
    }),
  };
}

/** A model caller answering from a list, recording its inputs. */
function scriptedModel(...answers: ModelAnswer[]): ((input: ModelCallInput) => Promise<ModelAnswer>) & { inputs: ModelCallInput[] } {
  const inputs: ModelCallInput[] = [];
  const call = async (input: ModelCallInput) => {
    inputs.push(input);
    const next = answers.shift();
    if (!next) throw new Error('scripted model ran out of answers');
    return next;
  };
  return Object.assign(call, { inputs });
}

const usage = { promptTokens: 20, completionTokens: 10, totalTokens: 30 };
const quote = (id: string, symbol: string): ModelAnswer => ({ toolCalls: [{ id, name: 'get_quote', arguments: JSON.stringify({ symbol }) }], usage });
const config: LlmPlannerConfig = { model: 'gpt-test' };
const tools = ['add_to_watchlist', 'get_quote'];

const turn0: Message[] = [{ role: 'user', content: 'quote my list' }];
const turn1: Message[] = [
  ...turn0,
  { role: 'assistant', toolCalls: [{ id: 'c1', name: 'get_quote', args: { symbol: 'TSLA' } }] },
  { role: 'tool', toolCallId: 'c1', name: 'get_quote', content: '{"price":1}' },
];

describe('LLM planner', () => {
  it("sends the whole transcript and the turn's instructions on the first call, then only what is new", async () => {
    const h = harness();
    const model = scriptedModel(quote('c1', 'TSLA'), { content: 'TSLA is 1.', toolCalls: [], usage });
    const planner = createLlmPlanner({ toolNames: tools, config, callModel: model });

    await planner.planStart({ messages: turn0 }, h.ctx(0));
    await planner.planResume({ messages: turn1, toolOutputs: [], lastOutputs: [] }, h.ctx(1, 'Watchlist: ["TSLA","AAPL"]'));

    const [first, second] = model.inputs.map((i) => modelCallInputSchema().parse(i));
    expect(first).toMatchObject({ workflowId: 'wf-1', runId: 'run-1', agent: 'watchlist-llm', model: 'gpt-test', baseCount: 0, baseDigest: emptyDigest, tools, finalize: false });
    expect(first?.instructions).toBe('Watchlist: ["TSLA"]');
    expect(first?.newMessages).toEqual(turn0);
    expect(second).toMatchObject({ baseCount: 1, baseDigest: chainDigest(emptyDigest, turn0), newMessages: turn1.slice(1) });
    expect(second?.instructions).toBe('Watchlist: ["TSLA","AAPL"]');
  });

  it('maps the answers to plans and reports usage of every call', async () => {
    const h = harness();
    const model = scriptedModel(quote('c1', 'TSLA'), { content: 'TSLA is 1.', toolCalls: [], usage });
    const planner = createLlmPlanner({ toolNames: tools, config, callModel: model });
    expect(await planner.planStart({ messages: turn0 }, h.ctx(0))).toEqual({ type: 'tool_calls', calls: [{ id: 'c1', name: 'get_quote', args: { symbol: 'TSLA' } }] });
    expect(await planner.planResume({ messages: turn1, toolOutputs: [], lastOutputs: [] }, h.ctx(1))).toEqual({ type: 'final', response: { text: 'TSLA is 1.' } });
    expect(h.usage).toEqual({ tokens: 60, modelCalls: 2, unknown: 0 });
  });

  it('notes when the provider reports no usage and records the call as of unknown usage, not as 0 tokens', async () => {
    const h = harness();
    await createLlmPlanner({ toolNames: tools, config, callModel: scriptedModel({ content: 'hi', toolCalls: [] }) }).planStart({ messages: turn0 }, h.ctx(0));
    expect(h.notes[0]?.labels).toMatchObject({ kind: 'no_usage' });
    expect(h.usage).toEqual({ tokens: 0, modelCalls: 1, unknown: 1 });
  });

  it('notes an answer cut at the token limit (finish reason length)', async () => {
    const h = harness();
    await createLlmPlanner({ toolNames: tools, config, callModel: scriptedModel({ content: 'The list is TS', toolCalls: [], finishReason: 'length', usage }) }).planStart(
      { messages: turn0 },
      h.ctx(0),
    );
    expect(h.notes.map((n) => n.labels?.kind)).toEqual(['truncated']);
  });

  it('asks a Finalize turn without tools, telling the model why', async () => {
    const h = harness();
    const model = scriptedModel(quote('c1', 'TSLA'), { content: 'Out of budget; TSLA is 1.', toolCalls: [], usage });
    const planner = createLlmPlanner({ toolNames: tools, config, callModel: model });
    await planner.planStart({ messages: turn0 }, h.ctx(0));
    const plan = await planner.planResume({ messages: turn1, toolOutputs: [], lastOutputs: [], finalize: { reason: 'token_budget', message: 'model budget is spent' } }, h.ctx(1));
    expect(plan).toEqual({ type: 'final', response: { text: 'Out of budget; TSLA is 1.' } });
    const last = modelCallInputSchema().parse(model.inputs[1]);
    expect(last.tools).toEqual([]);
    expect(last.finalize).toBe(true);
    expect(last.extraMessages).toEqual([{ role: 'user', content: expect.stringContaining('token_budget') }]);
  });

  it('offers the enabled human tools besides the agent tools', async () => {
    const model = scriptedModel({ content: 'ok', toolCalls: [] });
    await createLlmPlanner({ toolNames: tools, config: { ...config, humanTools: { clarification: true, multipleChoice: true } }, callModel: model }).planStart(
      { messages: turn0 },
      harness().ctx(0),
    );
    expect(model.inputs[0]?.tools).toEqual([...tools, 'ask_clarification', 'ask_multiple_choice']);
  });

  describe('structured output', () => {
    const structured: LlmPlannerConfig = { ...config, outputSchema: { name: 'quote_report', schema: z.object({ price: z.number() }) } };

    it('repairs an invalid answer in the same turn, sending the error back as extra messages only', async () => {
      const h = harness();
      const model = scriptedModel({ content: '{"price":"high"}', toolCalls: [], usage }, { content: '{"price": 3}', toolCalls: [], usage });
      const plan = await createLlmPlanner({ toolNames: tools, config: structured, callModel: model }).planStart({ messages: turn0 }, h.ctx(0));
      expect(plan).toEqual({ type: 'final', response: { text: '{"price": 3}', structured: { price: 3 } } });
      const repair = modelCallInputSchema().parse(model.inputs[1]);
      expect(repair).toMatchObject({ baseCount: 1, newMessages: [], outputSchema: 'quote_report' });
      expect(repair.extraMessages.map((m) => m.role)).toEqual(['assistant', 'user']);
      expect(h.usage.modelCalls).toBe(2);
      expect(h.notes.some((n) => n.labels?.kind === 'repair')).toBe(true);
    });

    it('fails with model_invalid_output after the allowed repair turns', async () => {
      const bad = (): ModelAnswer => ({ content: 'nope', toolCalls: [], usage });
      const model = scriptedModel(bad(), bad(), bad());
      const planner = createLlmPlanner({ toolNames: tools, config: { ...structured, maxRepairTurns: 2 }, callModel: model });
      const err = await Promise.resolve(planner.planStart({ messages: turn0 }, harness().ctx(0))).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect((err as ApplicationFailure).type).toBe('model_invalid_output');
      expect((err as ApplicationFailure).nonRetryable).toBe(true);
      expect(model.inputs).toHaveLength(3);
    });
  });

  it('takes a model override from the run options and rejects unknown options', async () => {
    const model = scriptedModel({ content: 'ok', toolCalls: [] });
    await createLlmPlanner({ toolNames: tools, config, options: { model: 'other-model' }, callModel: model }).planStart({ messages: turn0 }, harness().ctx(0));
    expect(model.inputs[0]?.model).toBe('other-model');
    expect(() => createLlmPlanner({ toolNames: tools, config, options: { modle: 'x' } })).toThrow(/invalid plannerOptions/);
  });

  it('passes new messages above the inline budget by reference (the worker reads them through the query)', async () => {
    const h = harness();
    const model = scriptedModel(quote('c1', 'TSLA'), { content: 'ok', toolCalls: [] });
    const planner = createLlmPlanner({ toolNames: tools, config: { ...config, maxInlineTranscriptBytes: 300 }, callModel: model });
    const long: Message[] = [{ role: 'user', content: 'x'.repeat(500) }];
    await planner.planStart({ messages: long }, h.ctx(0));
    expect(model.inputs[0]).toMatchObject({ baseCount: 1, baseDigest: chainDigest(emptyDigest, long), newMessages: [] });
    const next: Message[] = [...long, { role: 'assistant', toolCalls: [{ id: 'c1', name: 'get_quote', args: {} }] }, { role: 'tool', toolCallId: 'c1', name: 'get_quote', content: '1' }];
    await planner.planResume({ messages: next, toolOutputs: [], lastOutputs: [] }, h.ctx(1));
    expect(model.inputs[1]).toMatchObject({ baseCount: 1, newMessages: next.slice(1) });
  });

  it('resends everything when the transcript is shorter than what was sent (compaction)', async () => {
    const h = harness();
    const model = scriptedModel(quote('c1', 'TSLA'), { content: 'ok', toolCalls: [] });
    const planner = createLlmPlanner({ toolNames: tools, config, callModel: model });
    await planner.planStart({ messages: turn1 }, h.ctx(0));
    await planner.planResume({ messages: turn0, toolOutputs: [], lastOutputs: [] }, h.ctx(1));
    expect(model.inputs[1]).toMatchObject({ baseCount: 0, newMessages: turn0 });
  });
});

describe('defineLlmAgent', () => {
  it('refuses a tool named like an enabled human tool', () => {
    const clash = { name: 'ask_clarification', description: 'x', input: z.object({}), timeoutMs: 1, retry: {}, requiresConfirmation: false };
    expect(() => defineLlmAgent({ name: 'a', description: 'd', tools: [clash], llm: { model: 'm', humanTools: { clarification: true } } })).toThrow(/clashes/);
  });

  it('refuses an output schema name the provider would reject', () => {
    expect(() => defineLlmAgent({ name: 'a', description: 'd', tools: [], llm: { model: 'm', outputSchema: { name: 'a b', schema: z.object({}) } } })).toThrow(/output schema name/);
  });
});
