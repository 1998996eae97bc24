import { z } from 'zod';
import type { HumanToolsConfig } from './human-tools';

/** A structured output an agent's final answer must match. */
export interface OutputSchemaDefinition {
  /** Name sent to the provider (`response_format.json_schema.name`): letters, digits, `_`, `-`. */
  readonly name: string;
  readonly description?: string;
  /** Validates the model's JSON answer; its JSON Schema is derived on the worker. */
  readonly schema: z.ZodType;
}

/** Timeouts and retry policy of the model activity, in JSON-friendly units. */
export interface ModelActivityOptions {
  /** Limit of one attempt, streaming included. Default 120 s. */
  readonly startToCloseTimeoutMs?: number;
  /** The activity heartbeats while it streams; a dead worker is noticed after this. Default 30 s. */
  readonly heartbeatTimeoutMs?: number;
  /** Attempts including the first. Default 5. */
  readonly maximumAttempts?: number;
  /** Delay before the first retry (a provider's retry-after overrides it). Default 1 s. */
  readonly initialIntervalMs?: number;
  readonly backoffCoefficient?: number;
  readonly maximumIntervalMs?: number;
}

/** Defaults of {@link ModelActivityOptions}. */
export const defaultModelActivityOptions: Required<ModelActivityOptions> = {
  startToCloseTimeoutMs: 120_000,
  heartbeatTimeoutMs: 30_000,
  maximumAttempts: 5,
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 30_000,
};

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
  readonly activity?: ModelActivityOptions;
}

/** Per-run options of an LLM agent (`plannerOptions` of the run input). */
export const llmRunOptionsSchema = z
  .object({
    /** Overrides the agent's model for this run. */
    model: z.string().min(1).optional(),
    maxRepairTurns: z.number().int().min(0).max(10).optional(),
  })
  .strict();
export type LlmRunOptions = z.infer<typeof llmRunOptionsSchema>;

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
}
