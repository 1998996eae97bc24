import { activityInfo, ApplicationFailure, cancellationSignal, heartbeat, log } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { describeIssues } from '../../contracts';
import { callCost, priceOf, priceTableSchema, type PriceTable } from '../../contracts/pricing';
import type { AgentDefinition } from '../../workflows/agents/agent-registry';
import { callModelActivityName, modelCallInputSchema, type ModelAnswer } from '../../contracts/model-call';
import { AgentModelSpecs } from './agent-schemas';
import type { DeltaSink } from './delta-publisher';
import { DeltaTap, type DeltaSource } from './delta-tap';
import { EarlyCallReporter } from './early-calls';
import { conversationFor } from './conversation';
import { planModelRequest, type ModelRequest, type StructuredOutputMode } from './model-request';
import { isJsonSchemaRefusal, providerFailure } from './provider-errors';
import { completionAnswer, StreamAccumulator } from './stream-accumulator';
import { TranscriptCache } from './transcript-cache';
import { queryTranscriptFetcher, type TranscriptFetcher } from './transcript-query';

/** Dependencies of the model activity. */
export interface ModelActivityDependencies {
  /** Client of the model endpoint (see openAIFromEnv). Absent: every call fails with `model_config`. */
  readonly openai?: Pick<OpenAI, 'chat'>;
  /**
   * Prices of models, to give each call's cost in money (its answer's `cost`, counted toward the
   * run's `maxCost`). A call of a model not in the table, or without usage, has no cost: runs
   * count it as unknown, never as zero.
   */
  readonly prices?: PriceTable;
  /** Transcripts this worker has sent; default a fresh cache of 256 runs. */
  readonly cache?: TranscriptCache;
  /** Reads a run's messages on a cache miss; default the run's `transcript` query through the worker's client. */
  readonly fetchTranscript?: TranscriptFetcher;
  /** The worker's agents (their tool and output schemas); calls for other agents fail with `model_config`. */
  readonly findAgent?: (name: string) => AgentDefinition | undefined;
  /** Heartbeat period while waiting on the provider. Default 5 s. */
  readonly heartbeatIntervalMs?: number;
  /**
   * Where streamed token deltas go (text and tool-call arguments), beside the workflow: the
   * server's `LiveHub` in the same process, or an `HttpDeltaPublisher`. Absent: none are sent.
   * Deltas never enter the run's history; only the complete answer does.
   */
  readonly deltas?: DeltaSink;
  /**
   * Function specs of MCP tools offered by runs with toolsets, by name (see `mcpModelTools`);
   * DurableAgentsPlugin sets it from its `mcpServers`.
   */
  readonly mcpTools?: (refs: readonly { server: string; version: string; prefix?: string }[], names: readonly string[]) => Promise<ReadonlyMap<string, ChatCompletionFunctionTool>>;
}

/** The runtime activities of model planners, for `createActivities({ runtime })`. */
export type ModelActivities = Record<typeof callModelActivityName, (input: unknown) => Promise<ModelAnswer>>;

/**
 * Sends one request and returns its answer, streamed (heartbeating per chunk) or not. Provider
 * errors are thrown as the client raised them (the caller classifies them); a cancelled call
 * throws the cancellation, never a partial answer.
 */
async function send(openai: Pick<OpenAI, 'chat'>, request: ModelRequest, streaming: boolean, heartbeatMs: number, tap?: DeltaTap, early?: EarlyCallReporter): Promise<ModelAnswer> {
  const accumulator = new StreamAccumulator();
  // Heartbeats on a timer too: a long prompt can take a while before its first chunk.
  const timer = setInterval(() => heartbeat({ chunks: accumulator.chunks }), heartbeatMs);
  const signal = cancellationSignal();
  try {
    if (!streaming) {
      const completion = await openai.chat.completions.create({ ...request, stream: false }, { signal });
      return completionAnswer(completion);
    }
    const chunks = await openai.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } }, { signal });
    for await (const chunk of chunks) {
      accumulator.add(chunk);
      tap?.add(chunk);
      early?.check(accumulator.streamedCalls);
      heartbeat({ chunks: accumulator.chunks });
    }
    // Bounded: subscribers should see the last deltas before the answer lands as events.
    await tap?.flush();
    await early?.flush();
    // The client ends the iteration quietly when the request is aborted: a cancelled call must
    // not pass for a shorter answer.
    if (signal.aborted) throw signal.reason;
    return accumulator.answer();
  } catch (err) {
    // Cancelled (kill, time budget): report the cancellation, not a provider error.
    if (signal.aborted) throw signal.reason ?? err;
    throw err;
  } finally {
    clearInterval(timer);
  }
}

/** The MCP tools of a call, or a `model_config` failure when the worker has no MCP servers or a server cannot be reached. */
async function mcpToolSpecs(
  deps: ModelActivityDependencies,
  refs: readonly { server: string; version: string; prefix?: string }[],
  names: readonly string[],
): Promise<ReadonlyMap<string, ChatCompletionFunctionTool>> {
  if (!deps.mcpTools) throw ApplicationFailure.nonRetryable('this run offers MCP tools but the worker has no mcpServers configured', 'model_config');
  try {
    return await deps.mcpTools(refs, names);
  } catch (err) {
    throw ApplicationFailure.retryable(`could not read the MCP tool lists for this model call: ${err instanceof Error ? err.message : String(err)}`, 'model_unavailable');
  }
}

/** The model call deltas belong to: this activity attempt of the run's execution and turn. */
function deltaSource(workflowId: string, turn: number): DeltaSource {
  const info = activityInfo();
  const runId = info.workflowExecution?.runId;
  return { workflowId, ...(runId ? { runId } : {}), activityId: info.activityId, attempt: info.attempt, turn };
}

/**
 * Builds the `callModel` activity: rebuilds the run's conversation from the call's delta
 * (worker cache, or the transcript query on a miss), adds the agent's tool schemas and request
 * settings, streams a Chat Completion (heartbeating; or one plain request with `stream: false`)
 * and returns only the answer and its usage. When a server refuses a `json_schema` output
 * format, the call is sent again with the schema in the prompt, and this worker asks for that
 * model's structured output by prompt from then on (the planner validates and repairs).
 *
 * Errors: 429 / 5xx / connection problems are retryable ApplicationFailures (`model_rate_limited`,
 * `model_unavailable`), and so is an answer that ended without a finish reason
 * (`model_response_incomplete`); refused requests are non-retryable (`model_bad_request`,
 * `model_auth`, `model_not_found`, `model_context_length`); see workflows/planners/llm/errors.ts.
 *
 * @example
 * new DurableAgentsPlugin({ agents: [], tools: [], runtime: createModelActivities({ openai: openAIFromEnv() }) });
 */
/** The answer with its cost, when the table prices its model and the provider reported usage. */
export function withCost(answer: ModelAnswer, model: string, prices: PriceTable | undefined): ModelAnswer {
  const price = prices && answer.usage ? priceOf(prices, model, answer.model) : undefined;
  if (!prices || !price || !answer.usage) return answer;
  return { ...answer, cost: { amount: callCost(answer.usage, price), currency: prices.currency } };
}

export function createModelActivities(deps: ModelActivityDependencies = {}): ModelActivities {
  if (deps.prices) {
    // A price table is configuration: a bad one stops the worker at its start, naming the field.
    const table = priceTableSchema().safeParse(deps.prices);
    if (!table.success) throw new Error(`invalid model.prices: ${describeIssues(table.error)}`);
  }
  const cache = deps.cache ?? new TranscriptCache();
  const fetchTranscript = deps.fetchTranscript ?? queryTranscriptFetcher();
  const specs = new AgentModelSpecs(deps.findAgent ?? (() => undefined));
  const heartbeatMs = deps.heartbeatIntervalMs ?? 5_000;
  /** Models whose server refused a `json_schema` response_format on this worker. */
  const promptOnly = new Set<string>();

  const callModel = async (raw: unknown): Promise<ModelAnswer> => {
    const parsed = modelCallInputSchema().safeParse(raw);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid callModel input: ${describeIssues(parsed.error)}`, 'invalid_input');
    const input = parsed.data;
    if (!deps.openai) {
      throw ApplicationFailure.nonRetryable('no model endpoint is configured on this worker: set OPENAI_API_KEY and/or OPENAI_BASE_URL', 'model_config');
    }
    const openai = deps.openai;
    // Schemas first: a misconfigured worker fails before it reads any transcript.
    const mcpTools = input.toolsets?.length ? await mcpToolSpecs(deps, input.toolsets, input.tools) : undefined;
    const plan = planModelRequest(input, specs, mcpTools);
    const conversation = await conversationFor(input, cache, fetchTranscript);
    const streaming = plan.settings.stream !== false;
    const tap = deps.deltas ? new DeltaTap(deps.deltas, deltaSource(input.workflowId, input.turn)) : undefined;
    const early = input.earlyTools?.length ? new EarlyCallReporter({ workflowId: input.workflowId, runId: input.runId, turn: input.turn }, new Set(input.earlyTools)) : undefined;
    const attempt = (mode: StructuredOutputMode | undefined): Promise<ModelAnswer> => send(openai, plan.build(conversation.messages, mode), streaming, heartbeatMs, tap, early);
    const classify = (err: unknown): unknown => (cancellationSignal().aborted ? err : providerFailure(err, input.model));
    const mode = plan.structuredOutput === 'json_schema' && promptOnly.has(input.model) ? 'prompt' : plan.structuredOutput;
    const priced = (answer: ModelAnswer): ModelAnswer => withCost(answer, input.model, deps.prices);
    try {
      return priced(await attempt(mode));
    } catch (err) {
      if (mode !== 'json_schema' || !isJsonSchemaRefusal(err)) throw classify(err);
      promptOnly.add(input.model);
      log.warn(`the server refused a json_schema response_format for ${input.model}; asking for structured output by prompt`, { error: String(err) });
      return attempt('prompt').then(priced, (retryErr: unknown) => Promise.reject(classify(retryErr)));
    }
  };
  return { [callModelActivityName]: callModel };
}
