import type { Divergence } from './compare';
import type { EvalGate, EvaluationReport, RunEvaluation, TotalsSum } from './types';

/** The divergences of a run's tree: the run's own, then its sub-agent runs' (each summary naming the sub-agent run's path and agent). */
function divergences(run: RunEvaluation): Divergence[] {
  const subs = run.subRuns.flatMap((s) => (s.divergence ? [{ ...s.divergence, summary: `sub-run ${s.path.join('/')} (${s.agent}) ${s.divergence.summary}` }] : []));
  return [...(run.divergence ? [run.divergence] : []), ...subs];
}

/** Where the run's tree first diverged: the run itself, else its first sub-agent run that did. */
export function treeDivergence(run: RunEvaluation): Divergence | undefined {
  return divergences(run)[0];
}

function sum(sides: readonly (RunEvaluation['recorded'] | RunEvaluation['candidate'])[]): TotalsSum {
  const withTotals = sides.flatMap((s) => (s.totals ? [s.totals] : []));
  const cost: Record<string, number> = {};
  for (const t of withTotals) if (t.cost) cost[t.cost.currency] = (cost[t.cost.currency] ?? 0) + t.cost.amount;
  return {
    runs: withTotals.length,
    turns: withTotals.reduce((n, t) => n + t.turns, 0),
    toolCalls: withTotals.reduce((n, t) => n + t.toolCalls, 0),
    modelCalls: withTotals.reduce((n, t) => n + t.modelCalls, 0),
    tokens: withTotals.reduce((n, t) => n + t.tokens, 0),
    cost,
  };
}

/** The report's totals over its runs. */
export function summarize(runs: readonly RunEvaluation[], change: EvaluationReport['change']): EvaluationReport {
  return {
    runs,
    totals: {
      runs: runs.length,
      diverged: runs.filter((r) => treeDivergence(r)).length,
      toolChoiceDivergences: runs.filter((r) => treeDivergence(r)?.kind === 'tool_choice').length,
      argumentDivergences: runs.filter((r) => treeDivergence(r)?.kind === 'arguments').length,
      unrecordedCalls: runs.reduce((n, r) => n + r.unrecorded.length, 0),
      sameFinal: runs.filter((r) => r.sameFinal).length,
      invalidOutputs: runs.filter((r) => r.output && !r.output.valid).length,
      judged: runs.filter((r) => r.judge).length,
      judgePassed: runs.filter((r) => r.judge?.pass).length,
      errors: runs.filter((r) => r.error).length,
      recorded: sum(runs.map((r) => r.recorded)),
      candidate: sum(runs.map((r) => r.candidate)),
    },
    change,
  };
}

/** Why a run fails a gate, or undefined when it passes. */
export function gateFailure(run: RunEvaluation, gate: EvalGate): string | undefined {
  switch (gate) {
    case 'no-divergence': {
      const divergence = treeDivergence(run);
      return divergence ? `diverged (${divergence.kind}) at ${divergence.summary}` : undefined;
    }
    case 'no-tool-divergence': {
      const divergence = divergences(run).find((d) => d.kind === 'tool_choice');
      return divergence ? `chose other tools at ${divergence.summary}` : undefined;
    }
    case 'no-unrecorded-calls':
      return run.unrecorded.length ? `${run.unrecorded.length} call(s) the recording could not answer: ${run.unrecorded.map((u) => u.name).join(', ')}` : undefined;
    case 'judge':
      if (!run.judge) return 'no judge verdict (give a judge)';
      return run.judge.pass ? undefined : `the judge failed it${run.judge.reason ? `: ${run.judge.reason}` : ''}`;
    case 'valid-output':
      return run.output && !run.output.valid ? `invalid structured output: ${run.output.problem ?? ''}` : undefined;
    case 'no-errors':
      return run.error ? `could not be evaluated: ${run.error}` : undefined;
  }
}

/** The gates a report fails, each with the runs that fail it and why. */
export function failedGates(report: EvaluationReport, gates: readonly EvalGate[]): { gate: EvalGate; runs: { source: string; reason: string }[] }[] {
  return gates.flatMap((gate) => {
    // A run that could not be evaluated fails every gate: nothing says it would pass.
    const runs = report.runs.flatMap((r) => {
      const reason = r.error && gate !== 'no-errors' ? `could not be evaluated: ${r.error}` : gateFailure(r, gate);
      return reason ? [{ source: r.source, reason }] : [];
    });
    return runs.length ? [{ gate, runs }] : [];
  });
}
