import { parseBindAddress, prometheusFromEnv, tracingFromEnv } from '../../worker/telemetry';
import { resolveTracing } from '../../config/tracing';

describe('DURABLE_AGENTS_PROMETHEUS', () => {
  it('binds a bare port on loopback', () => {
    expect(prometheusFromEnv({ DURABLE_AGENTS_PROMETHEUS: '9464' })).toBe('127.0.0.1:9464');
  });

  it('keeps an explicit host, IPv6 included', () => {
    expect(prometheusFromEnv({ DURABLE_AGENTS_PROMETHEUS: '0.0.0.0:9464' })).toBe('0.0.0.0:9464');
    expect(parseBindAddress('[::1]:9464')).toBe('[::1]:9464');
  });

  it('is off when unset, empty or off', () => {
    expect(prometheusFromEnv({})).toBeUndefined();
    expect(prometheusFromEnv({ DURABLE_AGENTS_PROMETHEUS: ' ' })).toBeUndefined();
    expect(prometheusFromEnv({ DURABLE_AGENTS_PROMETHEUS: 'off' })).toBeUndefined();
  });

  it('names the variable when the value is not an address', () => {
    expect(() => prometheusFromEnv({ DURABLE_AGENTS_PROMETHEUS: 'http://127.0.0.1:9464' })).toThrow(/DURABLE_AGENTS_PROMETHEUS must be host:port or a port/);
    expect(() => prometheusFromEnv({ DURABLE_AGENTS_PROMETHEUS: '127.0.0.1:70000' })).toThrow(/DURABLE_AGENTS_PROMETHEUS/);
  });
});

describe('DURABLE_AGENTS_TRACING', () => {
  it('is off when unset or off', () => {
    expect(tracingFromEnv({})).toBeUndefined();
    expect(tracingFromEnv({ DURABLE_AGENTS_TRACING: 'off' })).toBeUndefined();
  });

  it('otlp gives OTLP tracing (a batching span processor once resolved) and the service name of OTEL_SERVICE_NAME', () => {
    const tracing = tracingFromEnv({ DURABLE_AGENTS_TRACING: 'OTLP', OTEL_SERVICE_NAME: 'agents-prod', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
    expect(tracing).toEqual({ otlp: true, serviceName: 'agents-prod' });
    expect(resolveTracing(tracing!).spanProcessor?.constructor.name).toBe('BatchSpanProcessor');
  });

  it('refuses other modes and non-HTTP endpoints, naming the variable', () => {
    expect(() => tracingFromEnv({ DURABLE_AGENTS_TRACING: 'jaeger' })).toThrow(/DURABLE_AGENTS_TRACING must be otlp or off/);
    expect(() => tracingFromEnv({ DURABLE_AGENTS_TRACING: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http/);
    expect(() => tracingFromEnv({ DURABLE_AGENTS_TRACING: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
  });
});

describe('tracing options', () => {
  it('needs somewhere for the spans to go', () => {
    expect(() => resolveTracing({})).toThrow(/give a spanProcessor, an exporter \(or otlp\) or a tracer/);
    expect(() => resolveTracing({ otlp: true, spanProcessor: resolveTracing({ otlp: true }).spanProcessor! })).toThrow(/give one of spanProcessor, exporter and otlp/);
  });
});
