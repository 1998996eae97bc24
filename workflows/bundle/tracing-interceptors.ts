/**
 * The workflow interceptors of traced bundles (`bundleAgentWorkflows(path, { tracing: true })`,
 * or a worker with the `tracing` option): Temporal's OpenTelemetry interceptors, except for
 * updates. Temporal's update wrapper adds awaits before an update's completion, which moves it
 * after commands issued in the same workflow task (e.g. the AgentStatus upsert of an approval):
 * a run traced live would then fail with a nondeterminism error on a worker without tracing,
 * and switching tracing off, or a fleet with and without it, would break open runs. With this
 * module, traced and untraced workers emit the same commands in the same order. Updates still
 * carry the client's span context; the run's span covers their effects.
 */
import { OpenTelemetryInboundInterceptor, OpenTelemetryInternalsInterceptor, OpenTelemetryOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { Next, UpdateInput, WorkflowInboundCallsInterceptor, WorkflowInterceptors } from '@temporalio/workflow';

class RunTracingInbound extends OpenTelemetryInboundInterceptor {
  override handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return next(input);
  }

  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    next(input);
  }
}

/** The interceptors the SDK loads from this module in every workflow of a traced bundle. */
export const interceptors = (): WorkflowInterceptors => ({
  inbound: [new RunTracingInbound()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
