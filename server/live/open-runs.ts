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

/** What publishers' posts need to know of a run: whether it is running, and its task queue. */
export interface RunFacts {
  readonly open: boolean;
  readonly taskQueue: string | undefined;
}

interface Entry {
  readonly facts: Promise<RunFacts | undefined>;
  readonly until: number;
}

/**
 * Whether runs exist and are open, and their task queues, from Temporal (a describe call), each
 * answer kept briefly: token deltas are taken only for such runs, so a publisher cannot fill the
 * server's memory with deltas of runs it made up, and a publisher scoped to task queues only for
 * the runs of those. A describe that fails (Temporal unreachable) counts as "not found" and is
 * not kept.
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
  async isOpen(workflowId: string): Promise<boolean> {
    return (await this.facts(workflowId))?.open === true;
  }

  /** Whether the run `workflowId` is running, and its task queue; undefined when it does not exist. */
  facts(workflowId: string): Promise<RunFacts | undefined> {
    const now = this.now();
    const cached = this.entries.get(workflowId);
    if (cached && cached.until > now) return cached.facts;
    const facts = this.describe(workflowId);
    this.entries.delete(workflowId);
    this.entries.set(workflowId, { facts, until: now + (this.options.ttlMs ?? 5_000) });
    while (this.entries.size > (this.options.maxEntries ?? 10_000)) this.entries.delete(this.entries.keys().next().value as string);
    facts.catch(() => undefined);
    return facts;
  }

  private async describe(workflowId: string): Promise<RunFacts | undefined> {
    await this.slot();
    try {
      const description = await this.agents.client.workflow.getHandle(workflowId).describe();
      return { open: description.status.name === 'RUNNING', taskQueue: description.taskQueue };
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) this.entries.delete(workflowId);
      return undefined;
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
