import { Runtime, type Logger } from '@temporalio/worker';
import { parseBindAddress, prometheusFromEnv } from '../config/telemetry-env';

export { parseBindAddress, prometheusFromEnv, tracingFromEnv } from '../config/telemetry-env';

/** Options of {@link installTelemetry}. */
export interface TelemetryOptions {
  /**
   * Serve the SDK's and the agents' metrics in Prometheus format at `http://<address>/metrics`.
   * `host:port` or a port (bound to 127.0.0.1). Default: DURABLE_AGENTS_PROMETHEUS; `null`: none.
   */
  readonly prometheus?: string | null;
  /** The SDK's logger (e.g. `new DefaultLogger('WARN')`). */
  readonly logger?: Logger;
  /** Labels on every metric (e.g. `{ deployment: 'blue' }`). */
  readonly globalTags?: Record<string, string>;
}

/**
 * Installs the Temporal SDK runtime of this process with metrics in Prometheus format: the
 * SDK's own (`temporal_*`: workflow and activity task latencies, slots, polls, …) and the
 * agents' (`durable_agents_*`, see docs/observability.md). Call it once, first thing, before any connection or
 * worker is created (they would install a runtime without metrics).
 *
 * @returns the address the metrics are served on, if any.
 * @throws Error when a runtime is installed already, or the address is malformed.
 * @example
 * installTelemetry({ prometheus: '127.0.0.1:9464' }); // or DURABLE_AGENTS_PROMETHEUS=9464
 * const worker = await createAgentWorker({ workflowsPath: require.resolve('./workflows'), agents: [], tools: [] });
 */
export function installTelemetry(options: TelemetryOptions = {}, env: NodeJS.ProcessEnv = process.env): { prometheus?: string } {
  const prometheus = options.prometheus === undefined ? prometheusFromEnv(env) : options.prometheus === null ? undefined : parseBindAddress(options.prometheus, 'prometheus');
  try {
    Runtime.install({
      ...(options.logger ? { logger: options.logger } : {}),
      ...(prometheus
        ? { telemetryOptions: { metrics: { prometheus: { bindAddress: prometheus }, ...(options.globalTags ? { globalTags: options.globalTags } : {}) } } }
        : {}),
    });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`installTelemetry: ${why}; call installTelemetry once, before creating any connection, client or worker`);
  }
  return prometheus ? { prometheus } : {};
}
