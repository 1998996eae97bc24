/**
 * Where an execution of a run may continue as new, with what it knows there:
 * - `boundary`: a turn boundary. `suggested`: Temporal suggests it; `longHistory`: the history
 *   reached the policy's bound; `manyMessages`: the execution accepted as many updates or
 *   signals as the policy allows.
 * - `wait`: a wait for people (approvals, an await) or a hold at a pause that found the
 *   continuation due and its turn at rest (nothing in flight): it would carry the open turn.
 */
export type ContinuationPoint =
  | { readonly at: 'boundary'; readonly suggested: boolean; readonly longHistory: boolean; readonly manyMessages: boolean }
  | { readonly at: 'wait' };

/**
 * Whether the run continues as new at `point` (pure). A long history continues at a boundary in
 * every release; continuing because of many messages, and continuing in a wait at all, came with
 * `continue-while-waiting` (1.0.0): `mayContinueWhileWaiting` says whether this run has it, and
 * is asked only when the answer decides, so a run of an older release records its marker only
 * where it takes the new path.
 */
export function continuesAsNew(point: ContinuationPoint, mayContinueWhileWaiting: () => boolean): boolean {
  if (point.at === 'wait') return mayContinueWhileWaiting();
  if (point.suggested || point.longHistory) return true;
  return point.manyMessages && mayContinueWhileWaiting();
}
