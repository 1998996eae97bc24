import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { WebSocketServer } from 'ws';
import type { AgentClient } from '../client/agent-client';
import { quoted } from '../contracts/safe-text';
import { createAgentApp } from './app';
import { authFromEnv, type AuthConfig } from './auth';
import type { ServerContext, WebhookSettings } from './context';
import { LiveHub, type LiveHubOptions } from './live';
import { deltaKeysFromEnv } from '../config/delta-keys';
import { webhookSourcesFromEnv } from '../config/webhook-sources';
import { approvalLinkKeysFromEnv, checkApprovalLinkKeys } from '../config/approval-link-keys';
import type { ApprovalLinkSettings } from './approval-links';
import { defaultMaxBodyBytes, defaultMaxWebSocketMessageBytes } from './request-guard';

/** Options of {@link startAgentServer}. */
export interface AgentServerOptions {
  readonly agents: AgentClient;
  /** Tokens and local-dev mode; default from the environment ({@link authFromEnv}). */
  readonly auth?: AuthConfig;
  /** Default 127.0.0.1: loopback only. */
  readonly host?: string;
  /** Default 0: any free port (see `url`). */
  readonly port?: number;
  /** CORS origins; default `DURABLE_AGENTS_CORS_ORIGINS` (comma-separated), else none. */
  readonly corsOrigins?: readonly string[];
  /** Your workflows module: enables fork, which replays a run's history in this process. */
  readonly workflowsPath?: string;
  /**
   * The names of the agents your workers run (e.g. `agents.map((a) => a.name)`): starting a run
   * or session of another agent is refused with 400. Without it such a run starts and fails.
   */
  readonly agentNames?: readonly string[];
  /**
   * Largest request body read, in bytes (413 beyond, refused before it is read); default
   * `DURABLE_AGENTS_MAX_BODY_BYTES`, else 1 MiB.
   */
  readonly maxBodyBytes?: number;
  /** Largest WebSocket message taken, in bytes (the socket closes with 1009 beyond). Default 256 KiB. */
  readonly maxWebSocketMessageBytes?: number;
  /**
   * The live hub: the events kept per feed, the token deltas kept (bytes in total and per run),
   * a broker shared with other servers, and the keys token deltas must be signed with
   * (`deltaKeys`; default `DURABLE_AGENTS_DELTAS_KEYS`, else none: unsigned deltas are taken).
   */
  readonly live?: LiveHubOptions;
  /**
   * The systems that may post signed messages into sessions (`POST /api/sessions/:id/webhooks/:source`);
   * default the sources of `DURABLE_AGENTS_WEBHOOK_SECRETS` and `DURABLE_AGENTS_WEBHOOK_SECRETS_FILE`
   * ({@link webhookSourcesFromEnv}), else none.
   */
  readonly webhooks?: WebhookSettings;
  /**
   * Approval links (`POST /api/runs/:id/approval-links`, `/approve/:token`): the keys that sign
   * them (the first signs, all verify) and the address people reach the server at; default the
   * keys of `DURABLE_AGENTS_APPROVAL_LINK_KEYS` and `DURABLE_AGENTS_PUBLIC_URL`, else links are off.
   */
  readonly approvalLinks?: ApprovalLinkSettings;
}

/** A running server. */
export interface AgentServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly app: Hono;
  readonly live: LiveHub;
  /** Whether requests without a token are let in (local-dev mode). */
  readonly localDev: boolean;
  /** Ends every stream and stops listening. */
  close(): Promise<void>;
}

/** `DURABLE_AGENTS_MAX_BODY_BYTES`, or undefined when unset. @throws Error naming the variable when it is no positive integer. */
function maxBodyBytesFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.DURABLE_AGENTS_MAX_BODY_BYTES?.trim();
  if (!raw) return undefined;
  const bytes = Number(raw);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new Error(`DURABLE_AGENTS_MAX_BODY_BYTES: expected a positive number of bytes, got ${quoted(raw, 100)}`);
  return bytes;
}

function corsFromEnv(env: NodeJS.ProcessEnv): string[] {
  return (env.DURABLE_AGENTS_CORS_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
}

/** The approval link settings of the options, else of the environment. @throws Error naming a malformed key or URL. */
function approvalLinkSettings(given: ApprovalLinkSettings | undefined): ApprovalLinkSettings {
  if (given) {
    checkApprovalLinkKeys(given.keys, 'approvalLinks.keys');
    return given;
  }
  const publicUrl = process.env.DURABLE_AGENTS_PUBLIC_URL?.trim();
  if (publicUrl && !/^https?:\/\/[^/]/.test(publicUrl)) throw new Error(`DURABLE_AGENTS_PUBLIC_URL: expected an http(s) address such as https://agents.example.com, got ${quoted(publicUrl, 100)}`);
  return { keys: approvalLinkKeysFromEnv(process.env), ...(publicUrl ? { publicUrl } : {}) };
}

/**
 * Starts the HTTP server: API, streams and dashboard.
 *
 * @throws Error when no token is configured and local-dev mode is off (every request would be
 *   refused), when the delta keys or webhook secrets are malformed (naming the key id or source and
 *   the variable), when the approval link keys are, or when the port is taken.
 */
export async function startAgentServer(options: AgentServerOptions): Promise<AgentServer> {
  const auth = options.auth ?? authFromEnv();
  if (auth.tokens.length === 0 && !auth.localDev) {
    throw new Error('durable-agents server: no tokens configured and local-dev mode is off, so every request would be refused; set DURABLE_AGENTS_TOKENS (name:role:token,...) or DURABLE_AGENTS_TOKENS_FILE, or DURABLE_AGENTS_LOCAL_DEV=1 on a trusted machine');
  }
  const maxBodyBytes = options.maxBodyBytes ?? maxBodyBytesFromEnv(process.env) ?? defaultMaxBodyBytes;
  const live = new LiveHub(options.agents, { ...options.live, deltaKeys: options.live?.deltaKeys ?? deltaKeysFromEnv(process.env) });
  const ctx: ServerContext = {
    agents: options.agents,
    auth,
    live,
    ...(options.workflowsPath ? { workflowsPath: options.workflowsPath } : {}),
    ...(options.agentNames ? { agentNames: options.agentNames } : {}),
    webhooks: options.webhooks ?? { sources: webhookSourcesFromEnv(process.env) },
    approvalLinks: approvalLinkSettings(options.approvalLinks),
  };
  const app = createAgentApp(ctx, { corsOrigins: options.corsOrigins ?? corsFromEnv(process.env), maxBodyBytes });
  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<ServerType>((resolve, reject) => {
    // The WebSocket server handles upgrades that the app's /api/runs/:id/ws route accepts.
    // Messages above maxPayload close the socket (1009) before they are buffered in full.
    const websocket = { server: new WebSocketServer({ noServer: true, maxPayload: options.maxWebSocketMessageBytes ?? defaultMaxWebSocketMessageBytes }) };
    const s = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0, websocket }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    app,
    live,
    localDev: auth.localDev,
    close: async () => {
      await live.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}
