import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResults, ResultRow } from './results';

/** A number with precision that suits its size: 12,345 · 123 · 12.3 · 1.23 · 0.00123. */
export function formatNumber(value: number): string {
  const abs = Math.abs(value);
  if (Number.isInteger(value) || abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return '0';
  return value.toPrecision(3);
}

/** A cost ratio: `×12.3` when durable-agents costs more than the reference, `×1/2.5` when less. */
export function formatRatio(ratio: number | undefined): string {
  if (ratio === undefined) return '—';
  if (ratio <= 0) return 'n/a';
  return ratio >= 1 ? `×${formatNumber(ratio)}` : `×1/${formatNumber(1 / ratio)}`;
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i >= 2 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ');
}

const value = (v: number | undefined): string => (v === undefined ? '—' : formatNumber(v));

/** The rows as a plain-text table, one block per section. */
export function renderTable(rows: readonly ResultRow[]): string {
  const header = ['metric', 'unit', 'durable-agents', 'temporal-raw', 'cost', 'durable-agents-local', 'temporal-raw-local', 'cost (local)'];
  const cells = rows.map((r) => [
    r.metric,
    r.unit,
    value(r.values['durable-agents']),
    value(r.values['temporal-raw']),
    formatRatio(r.costVsRaw),
    value(r.values['durable-agents-local']),
    value(r.values['temporal-raw-local']),
    formatRatio(r.costLocalVsRawLocal),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const lines = [pad(header, widths), widths.map((w) => '-'.repeat(w)).join('  ')];
  let section = '';
  rows.forEach((r, i) => {
    if (r.section !== section) {
      section = r.section;
      lines.push('', `${section}`);
    }
    lines.push(pad(cells[i] ?? [], widths));
  });
  lines.push(
    '',
    'cost = durable-agents ÷ temporal-raw, cost (local) = durable-agents-local ÷ temporal-raw-local, for times and sizes; reference ÷ durable-agents for rates (/s): above ×1, durable-agents costs more.',
    'With local activities many turns run inside one workflow task, so the local systems\' workflow-clock turns are not comparable: compare their wall rows.',
  );
  return lines.join('\n');
}

/** The header of the report: when, where, with what. */
export function renderFacts(results: BenchResults): string {
  const m = results.machine;
  const tuning = Object.keys(results.workerTuning).length ? JSON.stringify(results.workerTuning) : 'createAgentWorker defaults';
  const load = (l: readonly number[]): string => l.map((x) => x.toFixed(2)).join(' / ');
  // At start nothing of the benchmark runs yet, so load above the core count is someone else's.
  const busy = (results.load.atStart[0] ?? 0) > m.cores;
  return [
    `durable-agents benchmark (${results.plan.mode}), ${results.startedAt}, ${(results.durationMs / 1000).toFixed(1)} s`,
    `machine: ${m.cores} cores (${m.cpuModel}), ${(m.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB, ${m.platform}`,
    `node ${m.nodeVersion}, Temporal SDK ${m.temporalSdkVersion}, ${m.temporalCliVersion}; code ${m.codeVersion}`,
    `load average 1/5/15 min: ${load(results.load.atStart)} at start, ${load(results.load.atEnd)} at end${busy ? ' (machine BUSY before the benchmark started: figures are pessimistic)' : ''}`,
    `durable-agents worker: ${tuning}`,
    'temporal-raw: a hand-written workflow of the same loop (T turns of K parallel no-op activities; no planner, events or memo), ' +
      'own bundle and task queue, same process, same dev server; temporal-raw-local: the same with local activities; ' +
      'durable-agents-local: agent scripted-local, whose echo is a local tool',
  ].join('\n');
}

/**
 * Writes the results as `bench-<timestamp>.json` and `latest.json` in `dir`.
 *
 * @returns the path of the timestamped file.
 */
export function writeResults(dir: string, results: BenchResults): string {
  mkdirSync(dir, { recursive: true });
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const stamped = join(dir, `bench-${results.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(stamped, text);
  writeFileSync(join(dir, 'latest.json'), text);
  return stamped;
}
