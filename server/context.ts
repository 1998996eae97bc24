import { quoted } from '../contracts/safe-text';
import type { AgentClient } from '../client/agent-client';
import type { WebhookSource } from '../config/webhook-sources';
import type { AuthConfig } from './auth';
import { ApiError } from './errors';
import type { LiveHub } from './live/live-hub';
import type { ApprovalLinkSettings } from './approval-links/link-routes';

/** What every route of the server shares. */
export interface ServerContext {
  readonly agents: AgentClient;
  readonly auth: AuthConfig;
  /** Live event feeds and token deltas of runs (server/live). */
  readonly live: LiveHub;
  /** Your workflows module; enables fork (which replays a run's history in this process). */
  readonly workflowsPath?: string;
  /**
   * The agents your workers run, by name: starting a run or session of any other agent is
   * refused (400). Without it the server cannot know them (every agent runs as the same
   * workflow type) and such a run starts, then fails with `unknown_agent`.
   */
  readonly agentNames?: readonly string[];
  /** The systems that may post signed messages into sessions (`POST /api/sessions/:id/webhooks/:source`). */
  readonly webhooks?: WebhookSettings;
  /** The keys that sign approval links (`/approve/:token`); none: links are off. */
  readonly approvalLinks?: ApprovalLinkSettings;
}

/** Who may post messages into sessions through webhooks, and how old a delivery may be. */
export interface WebhookSettings {
  /** The sources and their secrets (see {@link WebhookSource}); none: every delivery is refused. */
  readonly sources: readonly WebhookSource[];
  /** How far a delivery's timestamp may be from the server's clock, in seconds; default 300. */
  readonly toleranceSeconds?: number;
}

/**
 * @throws ApiError `invalid_input` naming `field` when the server knows its agents and `agent`
 *   is none of them.
 */
export function checkAgentName(ctx: ServerContext, agent: string, field = 'body.agent'): void {
  const known = ctx.agentNames;
  if (!known || known.includes(agent)) return;
  const listed = known.slice(0, 20).map((name) => quoted(name, 100)).join(', ');
  throw new ApiError('invalid_input', `${field}: unknown agent ${quoted(agent, 100)}; this server runs ${listed || 'no agents'}${known.length > 20 ? ` and ${known.length - 20} more` : ''}`);
}
