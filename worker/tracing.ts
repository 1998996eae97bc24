import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import type { ResolvedTracing } from '../config/tracing';
import { workflowSourceModule } from './workflow-sources';

// The worker's side of tracing: the workflow interceptor module, activity spans, and the sink that
// exports the spans workflows emit. Options and the client's side are in config/tracing.ts.

/**
 * The workflow interceptor module that traces runs (added to the workflow bundle): Temporal's
 * OpenTelemetry interceptors without their update wrapper (see workflows/bundle/tracing-interceptors.ts).
 */
export const workflowTracingModule = workflowSourceModule('bundle/tracing-interceptors');

/** The activity interceptors that open a span per activity, as a child of the workflow's span that scheduled it. */
export function tracingActivityInterceptors(tracing: ResolvedTracing): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: tracing.tracer }),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  });
}

/** The sink through which workflows hand their spans (run, activity starts, signals, updates) to the worker. */
export function tracingSinks(tracing: ResolvedTracing): InjectedSinks<OpenTelemetrySinks> | Record<string, never> {
  return tracing.spanProcessor ? { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) } : {};
}
