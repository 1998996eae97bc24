import { trace, type Attributes } from '@opentelemetry/api';
import { CancelledFailure, type Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import { callModelActivityName } from '../contracts/model-call';
import { toolCallFromActivity } from '../contracts/tools';

/** Names of the agents' activity metrics (docs/observability.md). */
export const activityMetricNames = {
  modelLatency: 'durable_agents_model_call_latency_ms',
  modelTokens: 'durable_agents_model_tokens',
  modelCostMicros: 'durable_agents_model_cost_micros',
  modelCallsUnpriced: 'durable_agents_model_calls_unpriced',
  toolLatency: 'durable_agents_tool_call_latency_ms',
} as const;

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function outcomeOf(err: unknown): string {
  return err instanceof CancelledFailure || (err instanceof Error && err.name === 'AbortError') ? 'cancelled' : 'error';
}

function defined(attributes: Record<string, string | number | undefined>): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined)) as Attributes;
}

/**
 * Measures each attempt of the agents' activities and labels its span (when tracing is on):
 * model calls (latency by agent/model/outcome, tokens by agent/model/kind) and tool calls
 * (latency by agent/tool/outcome). Reads the activity's input and result as they are, without
 * changing them. Metrics go to the activity's `metricMeter`, a no-op unless the process
 * installed telemetry (`installTelemetry`).
 */
class AgentActivityInbound implements ActivityInboundCallsInterceptor {
  constructor(private readonly ctx: ActivityContext) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const type = this.ctx.info.activityType;
    const arg = record(input.args[0]);
    const isModel = type === callModelActivityName;
    // A compact tool input (0.6.0) leaves the call's names to the activity's type and id.
    const call = toolCallFromActivity(this.ctx.info);
    const agent = text(arg.agent) ?? (isModel ? undefined : call.agent) ?? 'unknown';
    const request = typeof arg.request === 'object' && arg.request !== null ? record(arg.request) : undefined;
    const tool = request ? (text(request.name) ?? call.tool) : undefined;
    if (!isModel && tool === undefined) return next(input); // not an agent activity
    const span = trace.getActiveSpan();
    const model = text(arg.model) ?? 'unknown';
    span?.setAttributes(
      defined(
        isModel
          ? { 'durable_agents.agent': agent, 'durable_agents.turn': count(arg.turn), 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model }
          : { 'durable_agents.agent': agent, 'durable_agents.tool': tool, 'durable_agents.tool_call_id': text(request?.toolCallId) ?? call.toolCallId, 'durable_agents.turn': count(request?.turn) ?? call.turn },
      ),
    );
    const meter = this.ctx.metricMeter;
    const started = performance.now();
    const latency = (outcome: string): void => {
      const ms = performance.now() - started;
      if (isModel) meter.createHistogram(activityMetricNames.modelLatency, 'float', 'ms', 'Model call latency (each attempt)').record(ms, { agent, model, outcome });
      else meter.createHistogram(activityMetricNames.toolLatency, 'float', 'ms', 'Tool call latency (each attempt)').record(ms, { agent, tool: tool ?? 'unknown', outcome });
    };
    let result: unknown;
    try {
      result = await next(input);
    } catch (err) {
      latency(outcomeOf(err));
      throw err;
    }
    latency('ok');
    if (isModel) {
      const usage = record(record(result).usage);
      const inputTokens = count(usage.promptTokens);
      const outputTokens = count(usage.completionTokens);
      span?.setAttributes(defined({ 'gen_ai.usage.input_tokens': inputTokens, 'gen_ai.usage.output_tokens': outputTokens, 'gen_ai.response.model': text(record(result).model) }));
      const tokens = meter.createCounter(activityMetricNames.modelTokens, 'tokens', 'Tokens of model calls, as the provider reported them');
      if (inputTokens) tokens.add(inputTokens, { agent, model, kind: 'input' });
      if (outputTokens) tokens.add(outputTokens, { agent, model, kind: 'output' });
      const cost = record(record(result).cost);
      const amount = count(cost.amount);
      // Money by currency, never converted; a call without a price is counted apart, not as free.
      // Counters count integers: money in millionths of its currency.
      if (amount !== undefined) meter.createCounter(activityMetricNames.modelCostMicros, 'micros', "Money of model calls in millionths of the currency, by the worker's price table").add(Math.round(amount * 1_000_000), { agent, model, currency: text(cost.currency) ?? 'unknown' });
      else meter.createCounter(activityMetricNames.modelCallsUnpriced, 'calls', 'Model calls of unknown cost (no price for the model, or no usage)').add(1, { agent, model });
    }
    return result;
  }
}

/** The activity interceptor of {@link AgentActivityInbound}, registered by `DurableAgentsPlugin`. */
export const agentActivityInterceptors: ActivityInterceptorsFactory = (ctx) => ({ inbound: new AgentActivityInbound(ctx) });
