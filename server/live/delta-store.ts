import type { TokenDelta } from '../../contracts/deltas';

/** Limits of a {@link DeltaStore}. */
export interface DeltaStoreOptions {
  /** Deltas kept per run (of its current model call). Default 4,000. */
  readonly maxPerRun?: number;
  /** Runs kept; the least recently updated go first. Default 1,000. */
  readonly maxRuns?: number;
  /** Bytes of deltas kept per run; later deltas of the call still reach live subscribers. Default 1 MiB. */
  readonly maxBytesPerRun?: number;
  /** Bytes of deltas kept in all; the least recently updated runs go first. Default 32 MiB. */
  readonly maxBytes?: number;
}

interface CurrentCall {
  activityId: string;
  attempt: number;
  turn: number | undefined;
  deltas: TokenDelta[];
  bytes: number;
}

/**
 * What {@link DeltaStore.add} made of a delta: kept; `stale` (an older attempt of the current
 * call: dropped); `duplicate` (a delta of the current call with a seq already kept: dropped; a
 * server fed by a broker can get one delta twice); `late` (a turn older than the current one,
 * or whose result has landed: sent live, not kept); `full` (the run's share is used up: sent
 * live, not kept).
 */
export type DeltaAdmission = 'kept' | 'stale' | 'duplicate' | 'late' | 'full';

/** Where `seq` goes in deltas sorted by seq, and whether one with that seq is there. */
function position(deltas: readonly TokenDelta[], seq: number): { index: number; found: boolean } {
  const last = deltas.at(-1);
  // Deltas mostly come in order: the common case costs one comparison.
  if (!last || last.seq < seq) return { index: deltas.length, found: false };
  let low = 0;
  let high = deltas.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((deltas[mid] as TokenDelta).seq < seq) low = mid + 1;
    else high = mid;
  }
  return { index: low, found: deltas[low]?.seq === seq };
}

/** Roughly what a delta holds on the heap: its strings (UTF-16) and a fixed overhead. */
export function deltaBytes(delta: TokenDelta): number {
  const strings = delta.workflowId.length + delta.activityId.length + delta.text.length + (delta.toolCallId?.length ?? 0) + (delta.toolName?.length ?? 0);
  return 2 * strings + 120;
}

/**
 * The token deltas of each run's current model call, in memory and bounded in count and bytes
 * (per run and in all), so that a subscriber joining mid-call sees the text streamed so far.
 * A call's deltas are kept in seq order, once each, however they arrive (a server fed by a
 * broker gets them from several publishers' posts, and again when it starts following the run).
 * A new call (another activity id) of the same or a later turn, or a retried attempt, replaces
 * what was kept; the call's result landing as events (the turn's `plan`) drops it. Deltas of
 * older attempts, of turns older than the current call's, or of turns whose result has landed,
 * are not kept.
 */
export class DeltaStore {
  private readonly runs = new Map<string, CurrentCall>();
  /** The last turn whose model result landed, per run. */
  private readonly landed = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly options: DeltaStoreOptions = {}) {}

  /** Keeps a delta (or says why not). */
  add(delta: TokenDelta): DeltaAdmission {
    const landed = this.landed.get(delta.workflowId);
    if (landed !== undefined && delta.turn !== undefined && delta.turn <= landed) return 'late';
    let call = this.runs.get(delta.workflowId);
    if (call && call.turn !== undefined && delta.turn !== undefined && delta.turn < call.turn) return 'late';
    if (call && call.activityId === delta.activityId && delta.attempt < call.attempt) return 'stale';
    if (!call || call.activityId !== delta.activityId || delta.attempt > call.attempt) {
      if (call) this.bytes -= call.bytes;
      call = { activityId: delta.activityId, attempt: delta.attempt, turn: delta.turn, deltas: [], bytes: 0 };
    }
    // Most recently updated last, for eviction.
    this.runs.delete(delta.workflowId);
    this.runs.set(delta.workflowId, call);
    const { index, found } = position(call.deltas, delta.seq);
    if (found) return 'duplicate';
    const size = deltaBytes(delta);
    const full = call.deltas.length >= (this.options.maxPerRun ?? 4_000) || call.bytes + size > (this.options.maxBytesPerRun ?? 1024 * 1024);
    if (!full) {
      call.deltas.splice(index, 0, delta);
      call.bytes += size;
      this.bytes += size;
    }
    const maxRuns = this.options.maxRuns ?? 1_000;
    const maxBytes = this.options.maxBytes ?? 32 * 1024 * 1024;
    while (this.runs.size > maxRuns || this.bytes > maxBytes) this.drop(this.runs.keys().next().value as string);
    return full ? 'full' : 'kept';
  }

  /** The kept deltas of a run's current call, oldest first. */
  current(workflowId: string): readonly TokenDelta[] {
    return this.runs.get(workflowId)?.deltas ?? [];
  }

  /** The model result of `turn` landed as events: its deltas are history now. */
  turnLanded(workflowId: string, turn: number): void {
    const call = this.runs.get(workflowId);
    if (call && (call.turn === undefined || call.turn <= turn)) this.removeCall(workflowId);
    this.landed.set(workflowId, Math.max(turn, this.landed.get(workflowId) ?? -1));
    // Bounded like the runs: a run whose deltas never came needs no entry for long.
    if (this.landed.size > (this.options.maxRuns ?? 1_000) * 2) this.landed.delete(this.landed.keys().next().value as string);
  }

  /** A rewind or the end of the run: forget its deltas and turns. */
  forget(workflowId: string): void {
    this.drop(workflowId);
  }

  /** Runs with kept deltas. */
  get size(): number {
    return this.runs.size;
  }

  /** Bytes of the deltas kept (as {@link deltaBytes} counts them). */
  get byteSize(): number {
    return this.bytes;
  }

  private removeCall(workflowId: string): void {
    const call = this.runs.get(workflowId);
    if (!call) return;
    this.bytes -= call.bytes;
    this.runs.delete(workflowId);
  }

  private drop(workflowId: string): void {
    this.removeCall(workflowId);
    this.landed.delete(workflowId);
  }
}
