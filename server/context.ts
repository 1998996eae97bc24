import type { AgentClient } from '../client/agent-client';
import type { AuthConfig } from './auth';
import type { LiveHub } from './live';

/** What every route of the server shares. */
export interface ServerContext {
  readonly agents: AgentClient;
  readonly auth: AuthConfig;
  /** Live event feeds and token deltas of runs (server/live). */
  readonly live: LiveHub;
  /** Your workflows module; enables fork (which replays a run's history in this process). */
  readonly workflowsPath?: string;
}
