/**
 * Shapes the dashboard reads from the API: the library's contracts (types only, nothing of
 * them is bundled) and the few answers that exist only over HTTP.
 */
export type {
  AwaitAnswer,
  BudgetChange,
  CallDecision,
  CostReport,
  Intervention,
  PendingInputs,
  RunEvent,
  RunStatus,
  RunStatusReport,
  SessionReport,
  SessionRunRecord,
} from '../contracts';
export type { SessionEvent, SessionQueueView } from '../contracts/session';
export type { PeriodUsage, TenantAccountView } from '../contracts/tenant-account';
export type { TenantQuota } from '../contracts/tenant-settings';
import type { CostReport, PendingInputs } from '../contracts';

/** Who the token belongs to (GET /api/whoami). */
export interface Whoami {
  readonly name: string;
  readonly role: string;
  readonly localDev: boolean;
}

/** One row of GET /api/runs. */
export interface RunSummary {
  readonly workflowId: string;
  readonly runId: string;
  readonly agent?: string;
  /** Whose run it is, when it has a tenant. */
  readonly tenant?: string;
  readonly status: string;
  readonly temporalStatus: string;
  readonly startTime: string;
  readonly closeTime?: string;
  readonly waitingForHuman: boolean;
  /** Set when the run's memo is encrypted with a key the server lacks. */
  readonly encrypted?: { readonly keyId: string };
  /** Earlier executions of the run (rewound or continued as new) the API folded into this row. */
  readonly earlierExecutions?: number;
  /** With `details=true`: the turn of a running run. */
  readonly turn?: number;
  /** With `details=true`: tool turns completed. */
  readonly iterations?: number;
  /** With `details=true`: budget used against each cap. */
  readonly cost?: CostReport;
}

/** A turn boundary a run can be rewound or forked to (GET /api/runs/:id/checkpoints). */
export interface Checkpoint {
  readonly turn: number;
  readonly eventId: number;
  readonly time: string;
  readonly summary: { readonly toolCalls: string[]; readonly modelCalls: number; readonly signals: string[]; readonly updates: string[] };
}

/** One row of GET /api/sessions. */
export interface SessionSummary {
  readonly sessionId: string;
  readonly workflowId: string;
  readonly status: string;
  readonly startTime: string;
}

/**
 * A token delta of a model call in flight (SSE `event: delta`): a fragment of the answer's text
 * or of a tool call's arguments. `activityId` and `attempt` name the call.
 */
export interface TokenDelta {
  readonly activityId: string;
  readonly attempt: number;
  readonly turn?: number;
  readonly seq: number;
  readonly kind: 'text' | 'tool-args';
  readonly text: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
}

/** What one run of a tree waits on (an entry of GET /api/runs/:id/pending's `tree` and of the inbox). */
export type TreePending = PendingInputs & { readonly workflowId: string; readonly path: readonly string[] };

/** GET /api/runs/:id/pending: the run's own inputs, and its tree's (this run first, path `[]`). */
export type RunPending = PendingInputs & { readonly tree: readonly TreePending[] };

/**
 * Set on a read the API answered from the run's history because no worker could answer: the
 * run's task queue, when a worker last polled it, and why.
 */
export interface NoWorker {
  readonly taskQueue: string;
  /** A worker polled within about a minute, but none answered in time (it may have crashed). */
  readonly polled: boolean;
  readonly lastSeen: string | null;
  readonly reason: string;
}

/** GET /api/runs/:id when no worker can answer its status query: what its history says. */
export interface RecordedRunStatus {
  readonly source: 'history';
  readonly workflowId: string;
  readonly agent: string | null;
  readonly status: string;
  readonly workflowStatus: string;
  readonly turns: number;
  readonly toolCalls: number;
  readonly noWorker?: NoWorker;
}

/** A run of a tree that waits for a person as its history records it (no worker says what it asks). */
export interface RecordedWait {
  readonly workflowId: string;
  readonly agent: string | null;
  readonly path: readonly string[];
}

/** GET /api/inbox. An entry with `source: 'history'` is a run whose history says it waits; what it asks needs a worker. */
export interface Inbox {
  readonly trees: readonly {
    readonly workflowId: string;
    readonly agent?: string;
    readonly startTime?: string;
    readonly waiting: readonly (TreePending & { readonly source?: 'history' })[];
    readonly noWorker?: NoWorker;
  }[];
  readonly truncated: boolean;
}

/** One run of a tree (GET /api/runs/:id/tree's `runs`, root first). */
export interface TreeRun {
  readonly workflowId: string;
  readonly agent: string;
  /** The run's own status: a running sub-agent run says `awaiting` while a person is asked. */
  readonly status: string;
  /** Call ids from the run asked about down to this one (empty for it). */
  readonly path: readonly string[];
  /** The parent's call that started it. */
  readonly toolCallId?: string;
  readonly startTime?: string;
  readonly closeTime?: string;
}

/** GET /api/runs/:id/tree: the run and its sub-agent runs, and what each of them waits on (from their histories when no worker answers). */
export interface RunTreeView {
  readonly runs: readonly TreeRun[];
  readonly pending: readonly TreePending[];
  readonly source?: 'history';
  readonly noWorker?: NoWorker;
  readonly waiting?: readonly RecordedWait[];
}

/** A rewind as the run's history records it (GET /api/runs/:id/rewinds). */
export type { RunRewind } from '../history/rewinds';
