/** A run's or session's status as a coloured badge (coloured by `status`, saying `label` when given). */
export function StatusBadge({ status, label }: { status: string; label?: string | undefined }) {
  return <span class={`badge status-${status.toLowerCase().replace(/[^a-z]+/g, '-')}`}>{label ?? status}</span>;
}

/** The badge of a run that waits for a human (an approval or an answer). */
export function WaitingBadge() {
  return <span class="badge waiting">waiting for human</span>;
}
