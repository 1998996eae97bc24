import type { RunEvent } from '../../contracts';

/**
 * Says when a run's open turn can go no further without people: every call the turn planned
 * has ended, waits for its approval, or depends on a call that cannot go on yet; and at least
 * one approval is pending. A chat response (the AI SDK chat route) ends there, as a model's
 * response ends at its approval requests; the client's answers start the next one.
 */
export class ApprovalPause {
  private planned = new Map<string, readonly string[]>();
  private ended = new Set<string>();
  private pending = new Set<string>();
  /** Approvals answered by the request being served, whose decisions the feed may not show yet. */
  private readonly answered: ReadonlySet<string>;

  constructor(answered: Iterable<string> = []) {
    this.answered = new Set(answered);
  }

  see(event: RunEvent): void {
    switch (event.type) {
      case 'plan':
        if (event.decision === 'tool_calls') this.planned = new Map((event.toolCalls ?? []).map((c) => [c.toolCallId, c.dependsOn ?? []]));
        return;
      case 'approval_requested':
        if (!this.answered.has(event.toolCallId)) this.pending.add(event.toolCallId);
        return;
      case 'approval_decided':
        this.pending.delete(event.toolCallId);
        return;
      case 'tool_result':
      case 'early_call_discarded':
        this.pending.delete(event.toolCallId);
        this.ended.add(event.toolCallId);
        return;
      default:
        return;
    }
  }

  /** A rewind: the run's calls start over. */
  reset(): void {
    this.planned = new Map();
    this.ended = new Set();
    this.pending = new Set();
  }

  /** The approvals pending now (those the request answered excluded), by tool call id. */
  get pendingApprovals(): string[] {
    return [...this.pending];
  }

  get waitingForPeople(): boolean {
    if (this.pending.size === 0) return false;
    return [...this.planned.keys()].every((id) => this.stuck(id, new Set()));
  }

  /** Whether a planned call has ended or cannot go on before someone answers. */
  private stuck(id: string, seen: Set<string>): boolean {
    if (this.ended.has(id) || this.pending.has(id)) return true;
    if (seen.has(id)) return true;
    seen.add(id);
    const dependsOn = this.planned.get(id) ?? [];
    return dependsOn.length > 0 && dependsOn.some((dep) => !this.ended.has(dep) && this.stuck(dep, seen));
  }
}
