/** A run's or session's status as a coloured badge. */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status.toLowerCase().replace(/[^a-z]+/g, '-')}`}>{status}</span>;
}

/** The badge of a run that waits for a human (an approval or an answer). */
export function WaitingBadge() {
  return <span class="badge waiting">waiting for human</span>;
}
