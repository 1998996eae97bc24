/**
 * Whether a run waits for people through its sub-agent runs (see run/people-waits.ts for the
 * signal that reports a child's waits): the pure decision, and the set of children that wait.
 */

/** What decides whether a run waits for people. */
export interface PeopleWaitView {
  /** Paused, or waiting for an approval or an answer of its own. */
  readonly waitsItself: boolean;
  /** The ids of the run's calls in flight (dispatched, not yet answered). */
  readonly inFlight: readonly string[];
  /** The calls whose sub-agent runs said they wait for people. */
  readonly childrenWaiting: ReadonlySet<string>;
}

/**
 * Whether a run waits for people, so that the time does not count against its budget: it waits
 * itself, or it has calls in flight and every one of them is a sub-agent run that waits for
 * people. A call that works (a tool, a child that runs) makes the run's time work.
 */
export function waitsForPeople(view: PeopleWaitView): boolean {
  if (view.waitsItself) return true;
  return view.inFlight.length > 0 && view.inFlight.every((id) => view.childrenWaiting.has(id));
}

/** The sub-agent runs of a run that said they wait for people, by the call they answer. */
export class ChildWaits {
  private readonly waiting = new Set<string>();

  /** Records what a child said; true when it changed anything. */
  note(toolCallId: string, waiting: boolean): boolean {
    if (waiting === this.waiting.has(toolCallId)) return false;
    if (waiting) this.waiting.add(toolCallId);
    else this.waiting.delete(toolCallId);
    return true;
  }

  /** A child's call ended, and its wait with it; true when it was waiting. */
  ended(toolCallId: string): boolean {
    return this.waiting.delete(toolCallId);
  }

  /** Whether the run waits for people through its children (see {@link waitsForPeople}). */
  holdRun(pending: ReadonlyMap<string, { readonly dispatched: boolean }>): boolean {
    if (this.waiting.size === 0) return false;
    const inFlight = [...pending].filter(([, call]) => call.dispatched).map(([id]) => id);
    return waitsForPeople({ waitsItself: false, inFlight, childrenWaiting: this.waiting });
  }
}
