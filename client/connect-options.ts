import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { dataConverterFromEnv } from '../config/encryption';
import { tracingFromEnv } from '../config/telemetry-env';
import { tenantsConfigFromEnv } from '../config/tenants-file';
import type { TenantsConfig } from '../contracts/tenant-settings';
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
  /**
   * The deployment's tenants file (`tenantsConfigFromEnv()` reads DURABLE_AGENTS_TENANTS_FILE): a
   * tenant's runs and sessions start with the Temporal priority of its `dispatch` settings (tier
   * and fairness weight) and the tenant as fairness key. Without it a tenant's runs have the
   * fairness key alone; runs without a tenant have no priority either way.
   */
  readonly tenants?: TenantsConfig;
}

/**
 * The client options the environment sets: the data converter of DURABLE_AGENTS_ENCRYPTION_KEYS
 * (/ _FILE), the tracing of DURABLE_AGENTS_TRACING and the tenants file of
 * DURABLE_AGENTS_TENANTS_FILE, for `AgentClient.connect(config, …)`
 * in a process whose configuration lives there (`AgentClient.fromEnv()` takes the config from
 * there too).
 *
 * @throws Error naming the variable whose value is malformed.
 * @example
 * const agents = await AgentClient.connect({ ...temporalConfigFromEnv(), taskQueue: 'notes' }, clientOptionsFromEnv());
 */
export function clientOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): AgentClientConnectOptions {
  const tracing = tracingFromEnv(env);
  const tenants = tenantsConfigFromEnv(env);
  return { dataConverter: dataConverterFromEnv(env), ...(tracing ? { tracing } : {}), ...(tenants ? { tenants } : {}) };
}

/** The client interceptors of `options`' tracing, with the OpenTelemetry SDK loaded now. */
export async function tracingInterceptors(options: AgentTracingOptions): Promise<WorkflowClientInterceptor[]> {
  const { resolveTracing, tracingClientInterceptors } = await import('../config/tracing');
  return tracingClientInterceptors(resolveTracing(options));
}
