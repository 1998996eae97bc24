import { ApplicationFailure, cancellationSignal, heartbeat } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { describeIssues, type Message } from '../../contracts';
import type { AgentDefinition } from '../../workflows/agent-registry';
import { callModelActivityName, modelCallInputSchema, type ModelAnswer, type ParsedModelCallInput } from '../../workflows/planners/llm';
import { AgentModelSpecs } from './agent-schemas';
import { toChatMessage, toChatMessages } from './chat-messages';
import { conversationFor } from './conversation';
import { providerFailure } from './provider-errors';
import { StreamAccumulator } from './stream-accumulator';
import { TranscriptCache } from './transcript-cache';
import { queryTranscriptFetcher, type TranscriptFetcher } from './transcript-query';

/** Dependencies of the model activity. */
export interface ModelActivityDependencies {
  /** Client of the model endpoint (see openAIFromEnv). Absent: every call fails with `model_config`. */
  readonly openai?: Pick<OpenAI, 'chat'>;
  /** Transcripts this worker has sent; default a fresh cache of 256 runs. */
  readonly cache?: TranscriptCache;
  /** Reads a run's messages on a cache miss; default the run's `transcript` query through the worker's client. */
  readonly fetchTranscript?: TranscriptFetcher;
  /** The worker's agents (their tool and output schemas); calls for other agents fail with `model_config`. */
  readonly findAgent?: (name: string) => AgentDefinition | undefined;
  /** Heartbeat period while waiting on the provider. Default 5 s. */
  readonly heartbeatIntervalMs?: number;
}

/** The runtime activities of model planners, for `createActivities({ runtime })`. */
export type ModelActivities = Record<typeof callModelActivityName, (input: unknown) => Promise<ModelAnswer>>;

async function stream(openai: Pick<OpenAI, 'chat'>, body: ChatCompletionCreateParamsStreaming, heartbeatMs: number): Promise<ModelAnswer> {
  const accumulator = new StreamAccumulator();
  // Heartbeats on a timer too: a long prompt can take a while before its first chunk.
  const timer = setInterval(() => heartbeat({ chunks: accumulator.chunks }), heartbeatMs);
  const signal = cancellationSignal();
  try {
    const chunks = await openai.chat.completions.create(body, { signal });
    for await (const chunk of chunks) {
      accumulator.add(chunk);
      heartbeat({ chunks: accumulator.chunks });
    }
    return accumulator.answer();
  } catch (err) {
    // Cancelled (kill, time budget): report the cancellation, not a provider error.
    if (signal.aborted) throw signal.reason ?? err;
    throw providerFailure(err, body.model);
  } finally {
    clearInterval(timer);
  }
}

/** The streaming request of a call; throws `model_config` when the worker lacks the agent's schemas. */
function requestBody(input: ParsedModelCallInput, specs: AgentModelSpecs): (conversation: readonly Message[]) => ChatCompletionCreateParamsStreaming {
  const tools = specs.tools(input.agent, input.tools);
  const responseFormat = input.outputSchema ? specs.responseFormat(input.agent, input.outputSchema) : undefined;
  return (conversation) => ({
    model: input.model,
    messages: [...toChatMessages(input.instructions, conversation), ...input.extraMessages.map(toChatMessage)],
    stream: true,
    stream_options: { include_usage: true },
    ...(tools.length ? { tools } : {}),
    ...(responseFormat ? { response_format: responseFormat } : {}),
  });
}

/**
 * Builds the `callModel` activity: rebuilds the run's conversation from the call's delta
 * (worker cache, or the transcript query on a miss), adds the agent's tool schemas, streams
 * a Chat Completion (heartbeating) and returns only the answer and its usage.
 *
 * Errors: 429 / 5xx / connection problems are retryable ApplicationFailures (`model_rate_limited`,
 * `model_unavailable`); refused requests are non-retryable (`model_bad_request`, `model_auth`,
 * `model_not_found`, `model_context_length`); see workflows/planners/llm/errors.ts.
 *
 * @example
 * createActivities({ tools, runtime: createModelActivities({ openai: openAIFromEnv() }) });
 */
export function createModelActivities(deps: ModelActivityDependencies = {}): ModelActivities {
  const cache = deps.cache ?? new TranscriptCache();
  const fetchTranscript = deps.fetchTranscript ?? queryTranscriptFetcher();
  const specs = new AgentModelSpecs(deps.findAgent ?? (() => undefined));
  const heartbeatMs = deps.heartbeatIntervalMs ?? 5_000;

  const callModel = async (raw: unknown): Promise<ModelAnswer> => {
    const parsed = modelCallInputSchema.safeParse(raw);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid callModel input: ${describeIssues(parsed.error)}`, 'invalid_input');
    const input = parsed.data;
    if (!deps.openai) {
      throw ApplicationFailure.nonRetryable('no model endpoint is configured on this worker: set OPENAI_API_KEY and/or OPENAI_BASE_URL', 'model_config');
    }
    // Schemas first: a misconfigured worker fails before it reads any transcript.
    const body = requestBody(input, specs);
    const conversation = await conversationFor(input, cache, fetchTranscript);
    return stream(deps.openai, body(conversation.messages), heartbeatMs);
  };
  return { [callModelActivityName]: callModel };
}
