import { trace, type Tracer } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { ensureOtelGlobals } from './otel-context';

/**
 * Tracing of agent runs through Temporal's OpenTelemetry interceptors. Give where spans go
 * (`spanProcessor`, or an `exporter` that gets a batching processor), or a `tracer` of an
 * OpenTelemetry SDK the application set up itself (client side; workers also need the processor
 * for the spans workflows emit).
 */
export interface AgentTracingOptions {
  /** Where the spans go, e.g. `new BatchSpanProcessor(new OTLPTraceExporter())`. */
  readonly spanProcessor?: SpanProcessor;
  /** Shorthand: spans go to this exporter through a `BatchSpanProcessor`. */
  readonly exporter?: SpanExporter;
  /**
   * Shorthand: spans go over OTLP/HTTP in batches, to where the `OTEL_EXPORTER_OTLP_*` variables
   * say (default http://localhost:4318). What `tracingFromEnv()` gives for DURABLE_AGENTS_TRACING=otlp.
   */
  readonly otlp?: true;
  /** `service.name` of the spans. Default `durable-agents`. Ignored when `resource` is given. */
  readonly serviceName?: string;
  /** Resource attributes of the spans (overrides `serviceName`). */
  readonly resource?: Resource;
  /** A tracer of your own OpenTelemetry SDK; default one of a provider over `spanProcessor`. */
  readonly tracer?: Tracer;
}

/** Tracing resolved to what the interceptors need. */
export interface ResolvedTracing {
  readonly tracer: Tracer;
  readonly resource: Resource;
  /** Absent when only a tracer was given: workflow spans then have nowhere to go. */
  readonly spanProcessor?: SpanProcessor;
}

/** Name of the tracer (instrumentation scope) of the spans of clients and activities. */
export const tracerName = 'durable-agents';

/**
 * Resolves tracing options: the span processor, a resource, a tracer over them; also installs
 * the context manager and W3C propagator this process needs (see `ensureOtelGlobals`).
 *
 * @throws Error when neither `spanProcessor`, `exporter`, `otlp` nor `tracer` is given, or more than one of the first three is.
 */
export function resolveTracing(options: AgentTracingOptions): ResolvedTracing {
  if ([options.spanProcessor, options.exporter, options.otlp].filter(Boolean).length > 1) throw new Error('tracing: give one of spanProcessor, exporter and otlp');
  const exporter = options.exporter ?? (options.otlp ? new OTLPTraceExporter() : undefined);
  const spanProcessor = options.spanProcessor ?? (exporter ? new BatchSpanProcessor(exporter) : undefined);
  if (!spanProcessor && !options.tracer) throw new Error('tracing: give a spanProcessor, an exporter (or otlp) or a tracer');
  const resource = options.resource ?? new Resource({ 'service.name': options.serviceName ?? 'durable-agents' });
  ensureOtelGlobals();
  const tracer = options.tracer ?? (spanProcessor ? new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] }).getTracer(tracerName) : trace.getTracer(tracerName));
  return { tracer, resource, ...(spanProcessor ? { spanProcessor } : {}) };
}

/** The client interceptor that opens a span per start, signal, update and query and passes its context to the run. */
export function tracingClientInterceptors(tracing: ResolvedTracing): WorkflowClientInterceptor[] {
  return [new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer })];
}
