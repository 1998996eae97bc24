/**
 * `npm run api`: the HTTP API and dashboard for the runs of a Temporal server. Connects with
 * the TEMPORAL_* environment, reads auth from DURABLE_AGENTS_TOKENS / DURABLE_AGENTS_TOKENS_FILE /
 * DURABLE_AGENTS_LOCAL_DEV, listens on DURABLE_AGENTS_HTTP_HOST (default 127.0.0.1) and
 * DURABLE_AGENTS_HTTP_PORT (default 8080). DURABLE_AGENTS_WORKFLOWS (your workflows module)
 * enables fork; DURABLE_AGENTS_AGENT_NAMES (comma-separated) lets it refuse runs of other agents.
 * DURABLE_AGENTS_REDIS_URL (redis://host:port) shares live deltas and announcements with the other
 * API servers on that Redis (several servers behind one address). DURABLE_AGENTS_DELTAS_KEYS makes
 * it take only token deltas signed with one of those keys. DURABLE_AGENTS_WEBHOOK_SECRETS /
 * DURABLE_AGENTS_WEBHOOK_SECRETS_FILE name the systems that may post signed messages into sessions.
 * DURABLE_AGENTS_APPROVAL_LINK_KEYS signs approval links (DURABLE_AGENTS_PUBLIC_URL: the address
 * in them).
 */
import { resolve } from 'node:path';
import { AgentClient, clientOptionsFromEnv } from '../client/agent-client';
import { temporalConfigFromEnv } from '../config/temporal';
import { authFromEnv } from './auth';
import { authModeLine, deltasModeLine } from './auth-mode';
import { deltaKeysFromEnv } from '../config/delta-keys';
import { webhookSourcesFromEnv } from '../config/webhook-sources';
import { approvalLinkKeysFromEnv } from '../config/approval-link-keys';
import { RedisLiveBroker } from './live';
import { startAgentServer } from './start';

/** The Redis URL without its password, for logs. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}

function portFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.DURABLE_AGENTS_HTTP_PORT?.trim() || '8080';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`DURABLE_AGENTS_HTTP_PORT: expected a port number (0-65535), got ${JSON.stringify(raw)}`);
  return port;
}

async function main(): Promise<void> {
  const env = process.env;
  const auth = authFromEnv(env);
  const deltaKeys = deltaKeysFromEnv(env);
  const webhookSources = webhookSourcesFromEnv(env);
  const linkKeys = approvalLinkKeysFromEnv(env);
  const port = portFromEnv(env);
  const config = temporalConfigFromEnv(env);
  const agents = await AgentClient.connect(config, clientOptionsFromEnv(env));
  const workflows = env.DURABLE_AGENTS_WORKFLOWS?.trim();
  const agentNames = (env.DURABLE_AGENTS_AGENT_NAMES ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const redisUrl = env.DURABLE_AGENTS_REDIS_URL?.trim();
  // The broker's default prefix names the namespace, as for servers started in code.
  const broker = redisUrl ? await RedisLiveBroker.connect({ url: redisUrl }) : undefined;
  const server = await startAgentServer({
    agents,
    auth,
    host: env.DURABLE_AGENTS_HTTP_HOST?.trim() || '127.0.0.1',
    port,
    ...(workflows ? { workflowsPath: resolve(workflows) } : {}),
    ...(agentNames.length > 0 ? { agentNames } : {}),
    live: { deltaKeys, ...(broker ? { broker } : {}) },
    webhooks: { sources: webhookSources },
  });
  console.log(`durable-agents API and dashboard at ${server.url} (OpenAPI: ${server.url}/openapi.json)`);
  console.log(`Temporal ${config.address}, namespace ${config.namespace}, task queue ${config.taskQueue}${workflows ? '' : '; fork off (set DURABLE_AGENTS_WORKFLOWS)'}`);
  console.log(authModeLine(auth));
  console.log(deltasModeLine(auth, deltaKeys));
  const sourceNames = [...new Set(webhookSources.map((s) => s.source))];
  console.log(sourceNames.length > 0 ? `webhooks: POST /api/sessions/:id/webhooks/<source> takes deliveries signed by ${sourceNames.join(', ')}` : 'webhooks: no sources (set DURABLE_AGENTS_WEBHOOK_SECRETS to take signed deliveries into sessions)');
  console.log(linkKeys.length > 0 ? `approval links: on, signed with key ${linkKeys[0]?.id ?? ''}${linkKeys.length > 1 ? ` (also taken: ${linkKeys.slice(1).map((k) => k.id).join(', ')})` : ''}` : 'approval links: off (set DURABLE_AGENTS_APPROVAL_LINK_KEYS to mint them)');
  console.log(redisUrl ? `live deltas and announcements shared with other API servers through Redis at ${redactedUrl(redisUrl)}` : 'one API server: live deltas stay in this process (set DURABLE_AGENTS_REDIS_URL to run several)');
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`durable-agents api: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
