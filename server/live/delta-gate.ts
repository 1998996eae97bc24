import type { TokenDelta } from '../../contracts/deltas';

/** Deltas held back at most while the events catch up; beyond that the turn is not previewed. */
const maxHeld = 10_000;

/**
 * Orders a run's token deltas against its events for one subscriber. The two travel apart
 * (deltas straight from the worker, events through Temporal), so either may arrive first; the
 * events decide. Deltas of a turn whose model result has landed (its `plan`) are dropped: the
 * events carry that answer. Deltas of a later turn are held until the events show the turn
 * before it settled (planned, and every call of it answered), as the workflow starts the next
 * model call only then.
 */
export class DeltaGate {
  /** The latest turn the events or the shown deltas reached. */
  private latest: number | undefined;
  private readonly planned = new Set<number>();
  /** Per turn, the calls still without a result. */
  private readonly open = new Map<number, Set<string>>();
  /** Calls with a result (one may come before its turn's plan: a call started early). */
  private readonly answered = new Set<string>();
  private held: TokenDelta[] = [];
  /** Deltas of this turn and older are not shown (too many were held). */
  private unpreviewed = -1;

  /** The latest turn seen, if any. */
  get turn(): number | undefined {
    return this.latest;
  }

  /** The events (or a shown delta) reached `turn`. */
  reached(turn: number): void {
    this.latest = Math.max(turn, this.latest ?? turn);
  }

  /** A turn's model result landed, with the calls it plans. */
  plan(turn: number, toolCallIds: readonly string[]): void {
    this.reached(turn);
    this.planned.add(turn);
    this.expect(turn, toolCallIds);
  }

  /** A call of `turn` started (it may precede the plan). */
  call(turn: number, toolCallId: string): void {
    this.reached(turn);
    this.expect(turn, [toolCallId]);
  }

  /** A call of `turn` has its result, or was discarded. */
  answer(turn: number, toolCallId: string): void {
    this.answered.add(toolCallId);
    this.open.get(turn)?.delete(toolCallId);
  }

  /** Queues a delta behind those already held. */
  hold(delta: TokenDelta): void {
    this.held.push(delta);
  }

  /** The held deltas the events have caught up with, in the order they came (late ones dropped). */
  release(): TokenDelta[] {
    const shown: TokenDelta[] = [];
    while (this.held.length > 0) {
      const next = this.held[0] as TokenDelta;
      const admission = this.admission(next);
      if (admission === 'hold') break;
      this.held.shift();
      if (admission === 'show') {
        shown.push(next);
        this.reached(next.turn ?? this.latest ?? 0);
      }
    }
    if (this.held.length > maxHeld) {
      this.unpreviewed = Math.max(...this.held.map((d) => d.turn ?? 0));
      this.held = [];
    }
    return shown;
  }

  /** Drops what is held (the run ended). */
  clear(): void {
    this.held = [];
  }

  private expect(turn: number, toolCallIds: readonly string[]): void {
    const open = this.open.get(turn) ?? new Set<string>();
    for (const id of toolCallIds) if (!this.answered.has(id)) open.add(id);
    this.open.set(turn, open);
  }

  private isSettled(turn: number): boolean {
    return this.planned.has(turn) && (this.open.get(turn)?.size ?? 0) === 0;
  }

  private admission(delta: TokenDelta): 'show' | 'drop' | 'hold' {
    const turn = delta.turn ?? this.latest ?? 0;
    if (this.planned.has(turn) || turn <= this.unpreviewed) return 'drop';
    if (this.latest === undefined || turn === this.latest) return 'show';
    if (turn < this.latest) return 'drop';
    return turn === this.latest + 1 && this.isSettled(this.latest) ? 'show' : 'hold';
  }
}
