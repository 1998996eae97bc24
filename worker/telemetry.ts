import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Runtime, type Logger } from '@temporalio/worker';
import type { AgentTracingOptions } from './tracing';

/** Loopback, unless the address names another host: metrics are not published by accident. */
const defaultMetricsHost = '127.0.0.1';

/**
 * Parses a Prometheus bind address: `host:port`, `[ipv6]:port`, or a bare port (bound to
 * 127.0.0.1).
 *
 * @throws Error naming `variable` when the value is none of those.
 */
export function parseBindAddress(value: string, variable = 'DURABLE_AGENTS_PROMETHEUS'): string {
  const v = value.trim();
  const m = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(v);
  const port = Number(m?.[2]);
  if (!m || port < 1 || port > 65535) throw new Error(`${variable} must be host:port or a port (e.g. 127.0.0.1:9464 or 9464), not ${JSON.stringify(v.slice(0, 80))}`);
  return `${m[1] ?? defaultMetricsHost}:${port}`;
}

/** Where the Prometheus endpoint binds, from DURABLE_AGENTS_PROMETHEUS (absent or `off`: none). */
export function prometheusFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env.DURABLE_AGENTS_PROMETHEUS?.trim();
  if (!value || value.toLowerCase() === 'off') return undefined;
  return parseBindAddress(value);
}

function checkUrl(env: NodeJS.ProcessEnv, variable: string): void {
  const value = env[variable]?.trim();
  if (!value) return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new Error(`${variable} must be an http:// or https:// URL (OTLP over HTTP), e.g. http://127.0.0.1:4318`);
}

/**
 * Tracing from the environment: `DURABLE_AGENTS_TRACING=otlp` sends spans over OTLP/HTTP
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, default
 * http://localhost:4318; `OTEL_EXPORTER_OTLP_HEADERS` for credentials) in batches, with
 * `service.name` from `OTEL_SERVICE_NAME` (default `durable-agents`). Absent or `off`: no tracing.
 *
 * @throws Error naming the variable when DURABLE_AGENTS_TRACING is not `otlp`/`off` or an endpoint is not an http(s) URL.
 */
export function tracingFromEnv(env: NodeJS.ProcessEnv = process.env): AgentTracingOptions | undefined {
  const mode = env.DURABLE_AGENTS_TRACING?.trim().toLowerCase();
  if (!mode || mode === 'off') return undefined;
  if (mode !== 'otlp') throw new Error(`DURABLE_AGENTS_TRACING must be otlp or off, not ${JSON.stringify(mode.slice(0, 40))}`);
  checkUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  checkUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  // The exporter reads the OTEL_EXPORTER_OTLP_* variables itself (endpoint, headers, timeout).
  return { spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()), serviceName: env.OTEL_SERVICE_NAME?.trim() || 'durable-agents' };
}

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
 * agents' (`durable_agents_*`, see README). Call it once, first thing, before any connection or
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
