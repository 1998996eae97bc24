/**
 * Shapes the dashboard reads from the API: the library's contracts (types only, nothing of
 * them is bundled) and the few answers that exist only over HTTP.
 */
export type {
  AwaitAnswer,
  BudgetChange,
  CallDecision,
  CostReport,
  PendingInputs,
  RunEvent,
  RunStatus,
  RunStatusReport,
  SessionReport,
  SessionRunRecord,
} from '../contracts';
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
  readonly status: string;
  readonly temporalStatus: string;
  readonly startTime: string;
  readonly closeTime?: string;
  readonly waitingForHuman: boolean;
  /** Set when the run's memo is encrypted with a key the server lacks. */
  readonly encrypted?: { readonly keyId: string };
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

/** GET /api/inbox. */
export interface Inbox {
  readonly trees: readonly { readonly workflowId: string; readonly agent?: string; readonly startTime?: string; readonly waiting: readonly TreePending[] }[];
  readonly truncated: boolean;
}
