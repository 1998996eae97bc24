/** Summary of a sample of numbers (milliseconds unless stated otherwise). */
export interface Summary {
  readonly n: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly min: number;
  readonly max: number;
}

/**
 * The q-quantile (0..1) of a sample by linear interpolation between closest ranks.
 *
 * @throws Error when the sample is empty or q is outside [0, 1].
 * @example percentile([1, 2, 3, 4], 0.5) // 2.5
 */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('percentile of an empty sample');
  if (q < 0 || q > 1) throw new Error(`quantile ${q} is outside [0, 1]`);
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? 0;
  const b = sorted[hi] ?? a;
  return a + (b - a) * (pos - lo);
}

/**
 * n, mean, p50, p95, min and max of a sample.
 *
 * @throws Error when the sample is empty.
 */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new Error('summary of an empty sample');
  return {
    n: values.length,
    mean: values.reduce((s, v) => s + v, 0) / values.length,
    p50: percentile(values, 0.5),
    p95: percentile(values, 0.95),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** Runs `fn` and returns its result with the elapsed wall-clock milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}
