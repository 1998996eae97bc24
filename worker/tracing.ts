import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import { resolveTracing, tracingClientInterceptors, type AgentTracingOptions, type ResolvedTracing } from '../config/tracing';

// The worker's side of tracing: activity spans, the client's interceptors, and the sink that
// exports the spans workflows emit (the workflow interceptor module is workflowTracingModule, in
// ./workflow-sources). Options and the client's side are in config/tracing.ts. Only a worker that
// traces loads this module: the OpenTelemetry SDK and its exporter take about 120 ms to load.

/** What tracing adds to a worker. */
export interface WorkerTracing {
  readonly resolved: ResolvedTracing;
  readonly activityInterceptors: ActivityInterceptorsFactory;
  readonly clientInterceptors: WorkflowClientInterceptor[];
  /** The sink workflows export their spans through (none without a span processor). */
  sinks(): InjectedSinks<OpenTelemetrySinks> | Record<string, never>;
}

/** A worker's tracing from its options. */
export function workerTracing(options: AgentTracingOptions): WorkerTracing {
  const resolved = resolveTracing(options);
  return {
    resolved,
    activityInterceptors: tracingActivityInterceptors(resolved),
    clientInterceptors: tracingClientInterceptors(resolved),
    sinks: () => tracingSinks(resolved),
  };
}

/** The activity interceptors that open a span per activity, as a child of the workflow's span that scheduled it. */
function tracingActivityInterceptors(tracing: ResolvedTracing): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: tracing.tracer }),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  });
}

/** The sink through which workflows hand their spans (run, activity starts, signals, updates) to the worker. */
function tracingSinks(tracing: ResolvedTracing): InjectedSinks<OpenTelemetrySinks> | Record<string, never> {
  return tracing.spanProcessor ? { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) } : {};
}
