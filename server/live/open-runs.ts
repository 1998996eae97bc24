import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentClient } from '../../client/agent-client';

/** Settings of {@link OpenRuns}. */
export interface OpenRunsOptions {
  /** How long an answer is kept. Default 5 s: a rewound run streams again soon after. */
  readonly ttlMs?: number;
  /** Answers kept at most; the oldest go first. Default 10,000. */
  readonly maxEntries?: number;
  /** Describe calls in flight at most. Default 16. */
  readonly concurrency?: number;
}

interface Entry {
  readonly open: Promise<boolean>;
  readonly until: number;
}

/**
 * Whether runs exist and are open, from Temporal (a describe call), each answer kept briefly:
 * token deltas are taken only for such runs, so a publisher cannot fill the server's memory
 * with deltas of runs it made up. A describe that fails (Temporal unreachable) counts as "not
 * open" and is not kept.
 */
export class OpenRuns {
  private readonly entries = new Map<string, Entry>();
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly agents: AgentClient,
    private readonly options: OpenRunsOptions = {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the run `workflowId` exists and is running. */
  isOpen(workflowId: string): Promise<boolean> {
    const now = this.now();
    const cached = this.entries.get(workflowId);
    if (cached && cached.until > now) return cached.open;
    const open = this.describe(workflowId);
    this.entries.delete(workflowId);
    this.entries.set(workflowId, { open, until: now + (this.options.ttlMs ?? 5_000) });
    while (this.entries.size > (this.options.maxEntries ?? 10_000)) this.entries.delete(this.entries.keys().next().value as string);
    open.catch(() => undefined);
    return open;
  }

  private async describe(workflowId: string): Promise<boolean> {
    await this.slot();
    try {
      const description = await this.agents.client.workflow.getHandle(workflowId).describe();
      return description.status.name === 'RUNNING';
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) this.entries.delete(workflowId);
      return false;
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  private async slot(): Promise<void> {
    while (this.active >= (this.options.concurrency ?? 16)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
  }
}
