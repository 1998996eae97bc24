import type { MetricTags } from '@temporalio/common';
import { ApplicationFailure, CancelledFailure, ContinueAsNew, metricMeter } from '@temporalio/workflow';
import type { RunInput, RunResult } from '../../contracts/run';
import type { AgentRegistry } from '../agents/agent-registry';

/**
 * Run counters of the agents' metrics (docs/observability.md). Workflow metrics are
 * emitted by the worker that runs the task live and never on replay, so a run is counted once
 * whichever worker replays it; they emit no command and leave a run's history unchanged.
 */
export const runMetricNames = { started: 'durable_agents_runs_started', ended: 'durable_agents_runs_ended' } as const;

function agentLabel(registry: AgentRegistry, input: unknown): string {
  const agent = typeof input === 'object' && input !== null ? (input as { agent?: unknown }).agent : undefined;
  // Only agents of the bundle: a name from the caller would make the label set unbounded.
  return typeof agent === 'string' && registry.find(agent) ? agent : 'unknown';
}

function endTags(outcome: { result?: RunResult; error?: unknown }): MetricTags | undefined {
  if (outcome.result) return { status: outcome.result.status === 'terminated' ? 'killed' : 'completed' };
  const err = outcome.error;
  if (err instanceof ContinueAsNew) return undefined; // the run goes on in its next execution
  if (err instanceof CancelledFailure) return { status: 'cancelled' };
  return { status: 'failed', reason: err instanceof ApplicationFailure && err.type ? err.type : 'error' };
}

/** Counts a run as started (not when it continues as new), and gives the counter of its end. */
export function countRun(registry: AgentRegistry, input: RunInput): (outcome: { result?: RunResult; error?: unknown }) => void {
  const agent = agentLabel(registry, input);
  const continued = typeof input === 'object' && input !== null && (input as { continued?: unknown }).continued !== undefined;
  if (!continued) metricMeter.createCounter(runMetricNames.started, 'runs', 'Agent runs started').add(1, { agent });
  return (outcome) => {
    const tags = endTags(outcome);
    if (tags) metricMeter.createCounter(runMetricNames.ended, 'runs', 'Agent runs ended, by status').add(1, { agent, ...tags });
  };
}
