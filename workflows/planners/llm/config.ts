import { z } from 'zod';
import { builtOnce } from '../../../contracts/lazy';
import type { HumanToolsConfig } from './human-tools';

/** A structured output an agent's final answer must match. */
export interface OutputSchemaDefinition {
  /** Name sent to the provider (`response_format.json_schema.name`): letters, digits, `_`, `-`. */
  readonly name: string;
  readonly description?: string;
  /** Validates the model's JSON answer; its JSON Schema is derived on the worker. */
  readonly schema: z.ZodType;
}

/**
 * Timeouts and retry policy of the model activity, in JSON-friendly units. A call that still
 * fails for an outage or rate limits (`model_unavailable`, `model_rate_limited`) after
 * `maximumAttempts` does not fail the run: the run reports that it waits for its provider
 * (`model_waiting`, the status's `waitingFor`) and retries without an attempt limit, backing off
 * up to `outageMaximumIntervalMs` (or as the provider's Retry-After says), until the provider
 * answers or the run's time budget is spent.
 */
export interface ModelActivityOptions {
  /** Limit of one attempt, streaming included. Default 120 s. */
  readonly startToCloseTimeoutMs?: number;
  /** The activity heartbeats while it streams; a dead worker is noticed after this. Default 30 s. */
  readonly heartbeatTimeoutMs?: number;
  /**
   * Attempts including the first. After them a failure that is not an outage (a broken or
   * incomplete answer, a timeout) fails the run, and an outage makes it wait. Default 5.
   */
  readonly maximumAttempts?: number;
  /** Delay before the first retry (a provider's retry-after overrides it). Default 1 s. */
  readonly initialIntervalMs?: number;
  readonly backoffCoefficient?: number;
  /** Longest delay between the first `maximumAttempts`. Default 30 s. */
  readonly maximumIntervalMs?: number;
  /** Longest delay between two attempts while the run waits for its provider (a provider's retry-after overrides it). Default 60 s. */
  readonly outageMaximumIntervalMs?: number;
}

/** Defaults of {@link ModelActivityOptions}. */
export const defaultModelActivityOptions: Required<ModelActivityOptions> = {
  startToCloseTimeoutMs: 120_000,
  heartbeatTimeoutMs: 30_000,
  maximumAttempts: 5,
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 30_000,
  outageMaximumIntervalMs: 60_000,
};

/**
 * What an agent's Chat Completions requests carry besides the conversation. Read by the worker
 * from the agent definition (never sent through workflow history); every field is optional and
 * unset means today's behaviour: the provider's defaults, streaming, `json_schema` output.
 */
export interface ModelRequestSettings {
  /**
   * Longest answer in tokens (`max_tokens`). A runaway answer then ends with finish reason
   * `length` instead of running into the activity timeout and being retried.
   */
  readonly maxTokens?: number;
  /** Sampling temperature, 0–2. */
  readonly temperature?: number;
  /** `tool_choice` on turns that offer tools: `auto`, `none`, `required`, or `{ name }` to force one tool. */
  readonly toolChoice?: 'auto' | 'none' | 'required' | { readonly name: string };
  /** `parallel_tool_calls` on turns that offer tools. */
  readonly parallelToolCalls?: boolean;
  /** `false`: one non-streaming request per call, for servers that cannot stream tool calls. Default true. */
  readonly stream?: boolean;
  /**
   * How an output schema is requested. `json_schema` (default): as `response_format`; when the
   * server refuses that, the worker falls back to `prompt` for the model from then on.
   * `prompt`: the JSON Schema goes into the system prompt only. The planner validates the
   * answer and asks for repairs either way.
   */
  readonly structuredOutput?: 'json_schema' | 'prompt';
}

/** How an agent uses its model. Code, bundled with the workflow: the same on every replay. */
export interface LlmPlannerConfig {
  /** Model name at the provider, e.g. `gpt-4o-mini`. A run may override it (plannerOptions.model). */
  readonly model: string;
  /** When set, the final answer is requested as structured output and validated. */
  readonly outputSchema?: OutputSchemaDefinition;
  /** Built-in tools that let the model ask a human (the run waits on an await barrier). */
  readonly humanTools?: HumanToolsConfig;
  /** Times the model may correct an invalid final answer or human-tool call in one turn. Default 2. */
  readonly maxRepairTurns?: number;
  /**
   * New messages above this many JSON bytes are not put in the model activity's input; the
   * worker reads them through the transcript query instead. Default 32 KiB.
   */
  readonly maxInlineTranscriptBytes?: number;
  /** Request parameters (max tokens, temperature, tool choice, streaming, structured output mode). */
  readonly request?: ModelRequestSettings;
  readonly activity?: ModelActivityOptions;
}

/** Per-run options of an LLM agent (`plannerOptions` of the run input). */
export const llmRunOptionsSchema = builtOnce(() =>
  z
    .object({
      /** Overrides the agent's model for this run. */
      model: z.string().min(1).optional(),
      maxRepairTurns: z.number().int().min(0).max(10).optional(),
    })
    .strict(),
);
export type LlmRunOptions = z.infer<ReturnType<typeof llmRunOptionsSchema>>;

/** Default of {@link LlmPlannerConfig.maxRepairTurns}. */
export const defaultMaxRepairTurns = 2;

const outputSchemaNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Checks a config at definition time (module load), so mistakes surface before any run.
 *
 * @throws Error naming the bad field.
 */
export function assertValidLlmConfig(agent: string, config: LlmPlannerConfig): void {
  if (!config.model) throw new Error(`agent ${agent}: llm.model must name a model`);
  if (config.outputSchema && !outputSchemaNamePattern.test(config.outputSchema.name)) {
    throw new Error(`agent ${agent}: output schema name ${JSON.stringify(config.outputSchema.name)} must match ${outputSchemaNamePattern}`);
  }
  const repairs = config.maxRepairTurns;
  if (repairs !== undefined && (!Number.isInteger(repairs) || repairs < 0)) {
    throw new Error(`agent ${agent}: llm.maxRepairTurns must be a non-negative integer`);
  }
  assertValidRequestSettings(agent, config.request ?? {});
}

function assertValidRequestSettings(agent: string, request: ModelRequestSettings): void {
  const { maxTokens, temperature, toolChoice, structuredOutput } = request;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) throw new Error(`agent ${agent}: llm.request.maxTokens must be a positive integer`);
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2)) throw new Error(`agent ${agent}: llm.request.temperature must be between 0 and 2`);
  if (typeof toolChoice === 'string' && !['auto', 'none', 'required'].includes(toolChoice)) throw new Error(`agent ${agent}: llm.request.toolChoice must be auto, none, required or { name }`);
  if (typeof toolChoice === 'object' && !toolChoice.name) throw new Error(`agent ${agent}: llm.request.toolChoice.name must name a tool`);
  if (structuredOutput !== undefined && structuredOutput !== 'json_schema' && structuredOutput !== 'prompt') {
    throw new Error(`agent ${agent}: llm.request.structuredOutput must be json_schema or prompt`);
  }
}
