import type { InterventionPoint, ParsedIntervention } from '../../contracts/control';

/** A queued operator modification, waiting for its safe point. */
export interface QueuedIntervention {
  readonly id: number;
  readonly intervention: ParsedIntervention;
}

interface Breakpoint {
  readonly point: InterventionPoint;
  readonly tool?: string;
  readonly once: boolean;
}

/** Why the run must end now. */
export interface KillRequest {
  readonly reason: string;
  readonly source: 'operator' | 'cancellation';
}

/**
 * Operator control state of a run: pause and kill requests, breakpoints, blocked tools and
 * queued modifications. Pure state (no awaits); the run loop acts on it at safe points.
 */
export class RunControl {
  pauseReason: string | undefined;
  /** Where the run is paused, while it is. */
  pausedAt: { point: InterventionPoint; turn: number; sinceMs: number; historyLength: number } | undefined;
  kill: KillRequest | undefined;
  private readonly breakpoints: Breakpoint[] = [];
  private readonly blocked = new Map<string, string>();
  private queue: QueuedIntervention[] = [];
  private nextId = 1;

  get isPauseRequested(): boolean {
    return this.pauseReason !== undefined;
  }

  get isPaused(): boolean {
    return this.pausedAt !== undefined;
  }

  /** Allocates an intervention id (ids are per run, increasing). */
  allocateId(): number {
    return this.nextId++;
  }

  enqueue(item: QueuedIntervention): void {
    this.queue.push(item);
  }

  /** Queued modifications still waiting, oldest first. */
  get queued(): readonly QueuedIntervention[] {
    return this.queue;
  }

  /** Removes and returns the queued items `match` accepts. */
  take(match: (item: QueuedIntervention) => boolean): QueuedIntervention[] {
    const taken = this.queue.filter(match);
    this.queue = this.queue.filter((item) => !match(item));
    return taken;
  }

  block(tool: string, reason: string): void {
    this.blocked.set(tool, reason);
  }

  unblock(tool: string): boolean {
    return this.blocked.delete(tool);
  }

  /** Why a tool is blocked, or undefined. */
  blockReason(tool: string): string | undefined {
    return this.blocked.get(tool);
  }

  get blockedTools(): string[] {
    return [...this.blocked.keys()];
  }

  get blockedList(): { name: string; reason: string }[] {
    return [...this.blocked].map(([name, reason]) => ({ name, reason }));
  }

  /** The id the next intervention will get. */
  get peekNextId(): number {
    return this.nextId;
  }

  /** Restores queued modifications carried across continue-as-new. */
  restoreQueue(items: readonly QueuedIntervention[], nextId: number): void {
    this.queue = [...items];
    this.nextId = nextId;
  }

  setBreakpoint(point: InterventionPoint, tool: string | undefined, once: boolean): void {
    this.clearBreakpoint(point, tool);
    this.breakpoints.push({ point, ...(tool ? { tool } : {}), once });
  }

  clearBreakpoint(point: InterventionPoint, tool: string | undefined): boolean {
    const before = this.breakpoints.length;
    const keep = this.breakpoints.filter((b) => !(b.point === point && b.tool === tool));
    this.breakpoints.splice(0, this.breakpoints.length, ...keep);
    return keep.length !== before;
  }

  /** True when a breakpoint matches this point (and tool); one-shot breakpoints are consumed. */
  hitBreakpoint(point: InterventionPoint, tool: string | undefined): boolean {
    const index = this.breakpoints.findIndex((b) => b.point === point && (b.tool === undefined || b.tool === tool));
    if (index < 0) return false;
    if (this.breakpoints[index]?.once) this.breakpoints.splice(index, 1);
    return true;
  }

  get breakpointList(): { point: InterventionPoint; tool?: string; once: boolean }[] {
    return this.breakpoints.map((b) => ({ ...b }));
  }
}
