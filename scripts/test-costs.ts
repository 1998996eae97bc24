/**
 * `npx tsx scripts/test-costs.ts <log> [<log after>]`: what each test file cost, from the lines the
 * test environment appends when `DURABLE_AGENTS_TEST_CPU_LOG` is set (test/support/test-environment.ts):
 * the costliest files by CPU seconds, and the totals of the unit and integration files. With a
 * second log (the same files after a change), each file's CPU before and after, biggest change first.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const lineSchema = z.object({ file: z.string(), cpuSeconds: z.number(), wallSeconds: z.number() });
type FileCost = z.infer<typeof lineSchema>;

/** Each file's cost in one log; a file logged more than once (several runs) counts their mean. */
function costs(path: string): Map<string, FileCost> {
  const byFile = new Map<string, FileCost[]>();
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .forEach((line, index) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = undefined;
      }
      const parsed = lineSchema.safeParse(value);
      if (!parsed.success) throw new Error(`${path}:${index + 1}: not a test cost line: ${line}`);
      byFile.set(parsed.data.file, [...(byFile.get(parsed.data.file) ?? []), parsed.data]);
    });
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  return new Map([...byFile].map(([file, runs]) => [file, { file, cpuSeconds: mean(runs.map((r) => r.cpuSeconds)), wallSeconds: mean(runs.map((r) => r.wallSeconds)) }]));
}

const isUnit = (file: string): boolean => file.startsWith('test/unit/') || file.includes('.unit.test.');
const seconds = (value: number): string => value.toFixed(1).padStart(7);

function report(path: string): void {
  const files = [...costs(path).values()].sort((a, b) => b.cpuSeconds - a.cpuSeconds);
  const total = (list: FileCost[]): number => list.reduce((sum, f) => sum + f.cpuSeconds, 0);
  const unit = files.filter((f) => isUnit(f.file));
  console.log(`${files.length} files, ${total(files).toFixed(0)} s of CPU: unit ${unit.length} files ${total(unit).toFixed(0)} s, integration ${files.length - unit.length} files ${(total(files) - total(unit)).toFixed(0)} s`);
  console.log('    cpu s  wall s  file');
  for (const f of files.slice(0, 30)) console.log(`${seconds(f.cpuSeconds)} ${seconds(f.wallSeconds)}  ${f.file}`);
}

function compare(beforePath: string, afterPath: string): void {
  const before = costs(beforePath);
  const after = costs(afterPath);
  const files = [...new Set([...before.keys(), ...after.keys()])];
  const delta = (file: string): number => (after.get(file)?.cpuSeconds ?? 0) - (before.get(file)?.cpuSeconds ?? 0);
  const sum = (map: Map<string, FileCost>): number => [...map.values()].reduce((s, f) => s + f.cpuSeconds, 0);
  console.log(`CPU ${sum(before).toFixed(0)} s -> ${sum(after).toFixed(0)} s`);
  console.log('   before   after  change  file');
  for (const file of files.sort((a, b) => Math.abs(delta(b)) - Math.abs(delta(a))).slice(0, 30)) {
    console.log(`${seconds(before.get(file)?.cpuSeconds ?? 0)} ${seconds(after.get(file)?.cpuSeconds ?? 0)} ${seconds(delta(file))}  ${file}`);
  }
}

const [first, second] = process.argv.slice(2);
if (!first) {
  console.error('usage: npx tsx scripts/test-costs.ts <log> [<log after a change>]  (logs written with DURABLE_AGENTS_TEST_CPU_LOG)');
  process.exit(2);
}
try {
  if (second) compare(first, second);
  else report(first);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
