import { gateFailure, treeDivergence } from './summary';
import { evalGates, type EvalGate, type EvaluationReport, type RunEvaluation, type TotalsSum } from './types';
import type { RecordedIntervention } from './recording-types';
import { asRecord } from './history-decode';

function cost(c: Readonly<Record<string, number>> | { amount: number; currency: string } | undefined): string {
  if (!c) return '-';
  if ('currency' in c && typeof c.currency === 'string') return `${(c as { amount: number }).amount.toFixed(6)} ${c.currency}`;
  const entries = Object.entries(c as Record<string, number>);
  return entries.length ? entries.map(([currency, amount]) => `${amount.toFixed(6)} ${currency}`).join(' + ') : '-';
}

function vs(recorded: number | undefined, candidate: number | undefined): string {
  return `${recorded ?? '-'} → ${candidate ?? '-'}`;
}

function pad(cells: readonly string[][]): string[] {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
}

function totalsLine(label: string, t: TotalsSum): string {
  return `${label}: ${t.turns} turns, ${t.toolCalls} tool calls, ${t.modelCalls} model calls, ${t.tokens} tokens, cost ${cost(t.cost)}`;
}

/**
 * The report as a table for people: one row per run (divergence, turns, tool calls, tokens and
 * cost recorded → candidate, unrecorded calls, final answer, judge), then the totals and each
 * run's divergence and final answers beside each other.
 */
export function formatEvalTable(report: EvaluationReport): string {
  const header = ['RUN', 'DIVERGES', 'TURNS', 'TOOL CALLS', 'TOKENS', 'UNRECORDED', 'FINAL', 'OUTPUT', 'JUDGE'];
  const rows = report.runs.map((r) => [
    r.source,
    r.error ? 'error' : diverges(r),
    vs(r.recorded.totals?.turns, r.candidate.totals?.turns),
    vs(r.recorded.totals?.toolCalls, r.candidate.totals?.toolCalls),
    vs(r.recorded.totals?.tokens, r.candidate.totals?.tokens),
    String(r.unrecorded.length),
    r.sameFinal ? 'same' : 'differs',
    r.output ? (r.output.valid ? 'valid' : 'invalid') : '-',
    r.judge ? `${r.judge.pass ? 'pass' : 'fail'}${r.judge.score !== undefined ? ` ${r.judge.score}` : ''}` : '-',
  ]);
  const t = report.totals;
  const lines = [
    ...pad([header, ...rows]),
    '',
    `${t.runs} runs: ${t.diverged} diverged (${t.toolChoiceDivergences} in tool choice, ${t.argumentDivergences} in arguments), ${t.unrecordedCalls} unrecorded calls, ${t.sameFinal} same final answers${t.judged ? `, judge passed ${t.judgePassed}/${t.judged}` : ''}${t.errors ? `, ${t.errors} not evaluated` : ''}`,
    totalsLine('recorded ', t.recorded),
    totalsLine('candidate', t.candidate),
  ];
  for (const r of report.runs) {
    const details = [
      r.error ? `  error: ${r.error}` : undefined,
      r.divergence ? `  diverges at ${r.divergence.summary}` : undefined,
      ...subRunLines(r),
      ...r.unrecorded.map((u) => `  not recorded (${u.kind}): ${u.name} ${JSON.stringify(u.args)}${u.turn !== undefined ? ` at turn ${u.turn}` : ''}${u.path?.length ? ` in sub-run ${u.path.join('/')}` : ''}`),
      ...r.interventions.map((i) => `  ${interventionName(i)}${i.path.length ? ` in sub-run ${i.path.join('/')}` : ''}, which the candidate did not get: ${JSON.stringify(i.intervention)}`),
      !r.error && r.candidate.status !== r.recorded.status ? `  ended ${r.recorded.status} → ${r.candidate.status}${r.candidate.failure ? `: ${r.candidate.failure}` : ''}` : undefined,
      ...finalLines(r),
      r.output && !r.output.valid ? `  invalid output: ${r.output.problem ?? ''}` : undefined,
      r.judge?.reason ? `  judge: ${r.judge.reason}` : undefined,
    ].filter((l): l is string => l !== undefined);
    if (details.length) lines.push('', r.source, ...details);
  }
  return lines.join('\n');
}

/** What a recorded intervention was, for people: an operator's (by its kind), or its session's decision about a message. */
function interventionName(i: RecordedIntervention): string {
  const messageId = i.kind === 'steer' ? i.intervention.messageId : asRecord(i.intervention.endedBy).messageId;
  if (i.kind === 'steer') return `steered session message ${String(messageId)}`;
  if (i.kind === 'interrupt' || i.kind === 'rollback') return `ended by session message ${String(messageId)} (whenBusy: ${i.kind})`;
  return `intervention (${i.kind})`;
}

/** The DIVERGES cell: the run's own first divergence, else its first sub-agent run's. */
function diverges(r: RunEvaluation): string {
  if (r.divergence) return `turn ${r.divergence.turn} (${r.divergence.kind})`;
  const sub = r.subRuns.find((s) => s.divergence);
  return sub?.divergence ? `sub-run ${sub.path.join('/')} turn ${sub.divergence.turn} (${sub.divergence.kind})` : 'no';
}

/** What the report says of the run's sub-agent runs: missing recordings, where one diverged, one answered from a pool. */
function subRunLines(r: RunEvaluation): string[] {
  return [
    ...r.missingSubRuns.map((m) => `  sub-run ${m.workflowId} (${m.agent}) not given: the candidate's sub-run in its place was answered "not recorded"`),
    ...r.subRuns.flatMap((s) => [
      ...(s.divergence ? [`  sub-run ${s.path.join('/')} (${s.agent}) diverges at ${s.divergence.summary}`] : []),
      ...(s.answeredFrom === 'pooled' ? [`  sub-run ${s.path.join('/')} (${s.agent}): no recorded sub-run had its input; answered from the recorded ${s.agent} sub-runs together`] : []),
    ]),
  ];
}

/** The final answers beside each other when they differ (the text, or only the structured value). */
function finalLines(r: RunEvaluation): string[] {
  if (r.sameFinal || r.error) return [];
  const recorded = r.recorded.final?.text ?? null;
  const candidate = r.candidate.final?.text ?? null;
  if (recorded !== null && recorded === candidate) return [`  final text the same (${JSON.stringify(recorded)}); the structured answers differ`];
  return [`  recorded final:  ${JSON.stringify(recorded)}`, `  candidate final: ${JSON.stringify(candidate)}`];
}

const xmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text made safe for XML: escaped, and without the control characters XML 1.0 cannot hold. */
export function xmlText(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[&<>"']/g, (c) => xmlEscapes[c]!);
}

function testcase(run: RunEvaluation, gates: readonly EvalGate[]): string {
  const failures = gates.flatMap((g) => {
    const reason = run.error && g !== 'no-errors' ? `could not be evaluated: ${run.error}` : gateFailure(run, g);
    return reason ? [`${g}: ${reason}`] : [];
  });
  const divergence = treeDivergence(run);
  const out = [divergence ? `diverges at ${divergence.summary}` : 'no divergence', `recorded final: ${run.recorded.final?.text ?? ''}`, `candidate final: ${run.candidate.final?.text ?? ''}`].join('\n');
  const body = failures.length
    ? `<failure message="${xmlText(failures.join('; '))}" type="eval_gate">${xmlText(failures.join('\n'))}</failure>`
    : '';
  return `    <testcase classname="agent-eval.${xmlText(run.agent)}" name="${xmlText(run.source)}">${body}<system-out>${xmlText(out)}</system-out></testcase>`;
}

/**
 * The report as JUnit XML (one test case per run, failed when it fails one of `gates`; all
 * gates when none are given), for CI systems that show test reports.
 */
export function formatEvalJunit(report: EvaluationReport, gates: readonly EvalGate[] = evalGates.filter((g) => g !== 'judge' || report.totals.judged > 0)): string {
  const cases = report.runs.map((r) => testcase(r, gates));
  const failures = cases.filter((c) => c.includes('<failure ')).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="agent-eval" tests="${report.runs.length}" failures="${failures}">`,
    `  <testsuite name="agent-eval" tests="${report.runs.length}" failures="${failures}" errors="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
