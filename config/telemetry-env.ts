import type { AgentTracingOptions } from './tracing';

// The telemetry settings read from the environment, apart from worker/telemetry.ts: clients read
// them too, and must not load the worker's native runtime to do so. Nor the OpenTelemetry SDK:
// it is loaded only when tracing is on (config/tracing.ts, imported on demand by the client).

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
  return { otlp: true, serviceName: env.OTEL_SERVICE_NAME?.trim() || 'durable-agents' };
}
