/**
 * `durable-agents/server`: the HTTP control API of agent runs (OpenAPI at `/openapi.json`),
 * their live event streams (SSE, AI SDK UI message stream, WebSocket) with token deltas, and
 * the web dashboard, on top of an {@link AgentClient}.
 *
 * @example
 * import { AgentClient } from 'durable-agents/client';
 * import { startAgentServer } from 'durable-agents/server';
 * const server = await startAgentServer({ agents: await AgentClient.fromEnv(), port: 8080 });
 * console.log(`API and dashboard at ${server.url}`);
 */
export { startAgentServer, type AgentServer, type AgentServerOptions } from './start';
export { createAgentApp, apiRoutes, type AppOptions } from './app';
export { authModeLine } from './auth-mode';
export { authFromEnv, type AuthConfig, type TokenGrant, type Role, type Principal, type Access } from './auth';
export { ApiError, apiErrorStatus, type ApiErrorType, type ApiErrorBody } from './errors';
export { openApiDocument, route, type RouteSpec, type RouteRequest, type AnyRoute } from './routes';
export { LiveHub, UiMessageProjection, type LiveHubOptions, type LiveHubStats, type UiMessageChunk, type FeedItem, type WebSocketOut, type SessionWebSocketOut, type ControlResult } from './live';
export { RedisLiveBroker, type RedisLiveBrokerOptions, type LiveBroker, type LiveBrokerContext, type LiveBrokerStats, type LiveMessage, type LiveMessageHandler } from './live';
export type { ServerContext, WebhookSettings } from './context';
export { signWebhookDelivery } from './webhooks';
export type { ApprovalLinkSettings, ApprovalLinkKey } from './approval-links';
export { webhookSourcesFromEnv, type WebhookSource } from '../config/webhook-sources';
