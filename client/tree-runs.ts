import type { Client } from '@temporalio/client';
import type { AwaitAnswer, CallDecision, PendingInputs, RunEvent, RunStatusReport } from '../contracts';
import type { HistoryStatus } from './history-view';
import type { PresenceSource } from './no-worker-reads';
import type { PendingInputsOptions, QueryOptions } from './query-options';

/** What the tree functions ask of one run: a part of {@link RunHandle}. */
export interface TreeRun {
  readonly workflowId: string;
  status(options?: QueryOptions): Promise<RunStatusReport>;
  pendingInputs(options?: PendingInputsOptions): Promise<PendingInputs>;
  statusFromHistory(): Promise<HistoryStatus>;
  follow(options?: { mode?: 'long-poll' | 'poll'; pollMs?: number }): AsyncGenerator<RunEvent>;
  decide(decision: CallDecision): Promise<PendingInputs>;
  answer(answer: AwaitAnswer): Promise<PendingInputs>;
}

/**
 * Where the tree functions get the handles of a tree's runs: an {@link AgentClient}
 * (`agents.run(id)`), or anything else that hands out handles by workflow id.
 */
export interface TreeRuns extends PresenceSource {
  readonly client: Client;
  run(workflowId: string): TreeRun;
}
