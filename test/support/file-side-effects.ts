import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { SideEffectSink } from '../../examples/toolbox/tools';

/** One recorded side effect. */
export interface SideEffectEntry {
  key: string;
  label: string;
  pid: number;
}

/** A side-effect sink that appends JSON lines to a file, shared by worker processes. */
export class FileSideEffectSink implements SideEffectSink {
  constructor(private readonly path: string) {}

  record(key: string, label: string): number {
    appendFileSync(this.path, `${JSON.stringify({ key, label, pid: process.pid })}\n`);
    return readSideEffects(this.path).filter((e) => e.key === key).length;
  }
}

/** Every entry recorded in a side-effect file, oldest first. */
export function readSideEffects(path: string): SideEffectEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SideEffectEntry);
}

/** How many times each label was recorded, e.g. `{ a: 1, b: 1 }`. */
export function sideEffectCounts(path: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of readSideEffects(path)) counts[e.label] = (counts[e.label] ?? 0) + 1;
  return counts;
}
