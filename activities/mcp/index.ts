export { McpClientPool, type ServerToolList, type PoolCallOptions } from './client-pool';
export { createMcpActivities, idempotencyMetaKey, type McpActivities } from './mcp-activities';
export { checkMcpServers, type McpServerConfig } from './server-config';
export { toolListVersion, type ServerTool } from './list-version';
export { callResultToJson, errorResultText } from './call-result';
export { mcpModelTools } from './model-tools';
