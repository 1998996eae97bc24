import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { dataConverterFromEnv } from '../config/encryption';
import { tracingFromEnv } from '../config/telemetry-env';
import type { AgentTracingOptions } from '../config/tracing';

/** Options of {@link AgentClient.connect}. */
export interface AgentClientConnectOptions {
  /**
   * Payload converter and codecs, e.g. `dataConverterFromEnv()` (the encryption of
   * DURABLE_AGENTS_ENCRYPTION_KEYS). Default: payloads as Temporal stores them, and a clear
   * error naming the key of an encrypted one.
   */
  readonly dataConverter?: DataConverter;
  /** OpenTelemetry tracing of the client's calls (`tracingFromEnv()` reads DURABLE_AGENTS_TRACING). Absent or `null`: none. */
  readonly tracing?: AgentTracingOptions | null;
}

/**
 * The client options the environment sets: the data converter of DURABLE_AGENTS_ENCRYPTION_KEYS
 * (/ _FILE) and the tracing of DURABLE_AGENTS_TRACING, for `AgentClient.connect(config, …)`
 * in a process whose configuration lives there (`AgentClient.fromEnv()` takes the config from
 * there too).
 *
 * @throws Error naming the variable whose value is malformed.
 * @example
 * const agents = await AgentClient.connect({ ...temporalConfigFromEnv(), taskQueue: 'notes' }, clientOptionsFromEnv());
 */
export function clientOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): AgentClientConnectOptions {
  const tracing = tracingFromEnv(env);
  return { dataConverter: dataConverterFromEnv(env), ...(tracing ? { tracing } : {}) };
}

/** The client interceptors of `options`' tracing, with the OpenTelemetry SDK loaded now. */
export async function tracingInterceptors(options: AgentTracingOptions): Promise<WorkflowClientInterceptor[]> {
  const { resolveTracing, tracingClientInterceptors } = await import('../config/tracing');
  return tracingClientInterceptors(resolveTracing(options));
}
