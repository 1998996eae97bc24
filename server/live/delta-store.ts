import type { TokenDelta } from '../../contracts/deltas';

/** Limits of a {@link DeltaStore}. */
export interface DeltaStoreOptions {
  /** Deltas kept per run (of its current model call). Default 4,000. */
  readonly maxPerRun?: number;
  /** Runs kept; the least recently updated go first. Default 1,000. */
  readonly maxRuns?: number;
}

interface CurrentCall {
  activityId: string;
  attempt: number;
  turn: number | undefined;
  deltas: TokenDelta[];
}

/** What {@link DeltaStore.add} made of a delta. */
export type DeltaAdmission = 'kept' | 'stale' | 'late';

/**
 * The token deltas of each run's current model call, in memory and bounded, so that a
 * subscriber joining mid-call sees the text streamed so far. A new call (another activity
 * id) or a retried attempt replaces what was kept; the call's result landing as events (the
 * turn's `plan`) drops it. Deltas of older attempts, or of turns whose result has landed,
 * are not kept.
 */
export class DeltaStore {
  private readonly runs = new Map<string, CurrentCall>();
  /** The last turn whose model result landed, per run. */
  private readonly landed = new Map<string, number>();

  constructor(private readonly options: DeltaStoreOptions = {}) {}

  /** Keeps a delta (or says why not). */
  add(delta: TokenDelta): DeltaAdmission {
    const landed = this.landed.get(delta.workflowId);
    if (landed !== undefined && delta.turn !== undefined && delta.turn <= landed) return 'late';
    let call = this.runs.get(delta.workflowId);
    if (call && call.activityId === delta.activityId && delta.attempt < call.attempt) return 'stale';
    if (!call || call.activityId !== delta.activityId || delta.attempt > call.attempt) {
      call = { activityId: delta.activityId, attempt: delta.attempt, turn: delta.turn, deltas: [] };
    }
    // Most recently updated last, for eviction.
    this.runs.delete(delta.workflowId);
    this.runs.set(delta.workflowId, call);
    if (call.deltas.length < (this.options.maxPerRun ?? 4_000)) call.deltas.push(delta);
    const maxRuns = this.options.maxRuns ?? 1_000;
    while (this.runs.size > maxRuns) {
      const oldest = this.runs.keys().next().value as string;
      this.runs.delete(oldest);
      this.landed.delete(oldest);
    }
    return 'kept';
  }

  /** The kept deltas of a run's current call, oldest first. */
  current(workflowId: string): readonly TokenDelta[] {
    return this.runs.get(workflowId)?.deltas ?? [];
  }

  /** The model result of `turn` landed as events: its deltas are history now. */
  turnLanded(workflowId: string, turn: number): void {
    const call = this.runs.get(workflowId);
    if (call && (call.turn === undefined || call.turn <= turn)) this.runs.delete(workflowId);
    this.landed.set(workflowId, Math.max(turn, this.landed.get(workflowId) ?? -1));
    // Bounded like the runs: a run whose deltas never came needs no entry for long.
    if (this.landed.size > (this.options.maxRuns ?? 1_000) * 2) this.landed.delete(this.landed.keys().next().value as string);
  }

  /** A rewind or the end of the run: forget its deltas and turns. */
  forget(workflowId: string): void {
    this.runs.delete(workflowId);
    this.landed.delete(workflowId);
  }

  /** Runs with kept deltas. */
  get size(): number {
    return this.runs.size;
  }
}
