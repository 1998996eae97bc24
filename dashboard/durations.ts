/**
 * A duration in words: "850 ms", "4.2 s", "42 s", "3 min 5 s", "2 h 10 min". The duration is
 * rounded to the smallest unit shown before it is split, so a value that rounds up to the next
 * unit is written in it ("30 min 0 s", never "29 min 60 s").
 */
export function formatDuration(ms: number): string {
  const wholeMs = Math.round(ms);
  if (wholeMs < 1_000) return `${wholeMs} ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const minutes = Math.round(ms / 60_000);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
