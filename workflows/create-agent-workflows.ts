import type { RunInput, RunResult } from '../contracts/run';
import type { SessionInput, SessionReport, SessionRunRecord } from '../contracts/session';
import { createAgentRegistry, type AgentDefinition } from './agents/agent-registry';
import { createAgentRun } from './run/agent-run';
import { agentSession } from './sessions/agent-session';
import { agentScheduledMessage } from './sessions/scheduled-message';
import { agentTenantAccount, type TenantAccountInput } from './tenants/tenant-account';
import type { ScheduledMessageInput } from '../contracts/session-schedule';

/** Options of {@link createAgentWorkflows}. */
export interface AgentWorkflowsOptions {
  /** The agents runs of this bundle may use; names must be unique. */
  readonly agents: readonly AgentDefinition[];
  /**
   * Send tool activities compact inputs: without the run id, agent, idempotency key, default
   * result budget and empty session state, which the activity derives from its own info (about
   * 60 % fewer bytes per call in history). Activities of 0.6.0 and later accept them, earlier ones
   * refuse them: turn it on once every worker of the task queue runs 0.6.0 or later, or when the
   * workers run with worker versioning and runs pinned (their activities then run on their own
   * version). Default false. Local tools always get compact inputs (they run on the worker that
   * runs the workflow task).
   */
  readonly compactToolInputs?: boolean;
}

/** The workflow functions a user's workflows module exports. */
export interface AgentWorkflows {
  /** One agent run (workflow type `agentRun`). */
  readonly agentRun: (input: RunInput) => Promise<RunResult>;
  /** One conversation whose messages become child `agentRun`s (workflow type `agentSession`). */
  readonly agentSession: (input: SessionInput) => Promise<SessionReport>;
  /**
   * One firing of a session's schedule: posts its message into the session (workflow type
   * `agentScheduledMessage`). Export it where sessions have schedules (docs/human-in-the-loop.md,
   * "Messages on a schedule").
   */
  readonly agentScheduledMessage: (input: ScheduledMessageInput) => Promise<SessionRunRecord>;
  /**
   * A tenant's account: admits its runs under its quotas and keeps its ledger (workflow type
   * `agentTenantAccount`). Export it where workers have a tenants file (docs/serving-many-users.md).
   */
  readonly agentTenantAccount: (input: TenantAccountInput) => Promise<void>;
}

/**
 * Builds the durable-agents workflows over the given agents. Export the result from your own
 * workflows module (the file you give the worker as `workflowsPath`); the export names are the
 * workflow types, so keep them `agentRun`, `agentSession`, `agentScheduledMessage` and `agentTenantAccount`.
 *
 * @throws Error when two agents share a name or an agent definition is invalid.
 * @example
 * // src/workflows.ts
 * import { createAgentWorkflows } from 'durable-agents/workflow';
 * import { notesAgent } from './agent';
 * export const { agentRun, agentSession, agentScheduledMessage, agentTenantAccount } = createAgentWorkflows({ agents: [notesAgent] });
 */
export function createAgentWorkflows(options: AgentWorkflowsOptions): AgentWorkflows {
  const registry = createAgentRegistry(options.agents);
  return { agentRun: createAgentRun(registry, { compactToolInputs: options.compactToolInputs ?? false }), agentSession, agentScheduledMessage, agentTenantAccount };
}
