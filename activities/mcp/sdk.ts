/**
 * The MCP SDK's transports and types, loaded when first asked for (a connection, or an error to
 * classify): a worker without MCP servers never loads them (about 120 ms of CPU at start, MCP or
 * not, before). The client itself is imported where the pool connects.
 */
type Transports = typeof import('@modelcontextprotocol/sdk/client/stdio.js') & typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type Types = typeof import('@modelcontextprotocol/sdk/types.js');

let transports: Transports | undefined;
let types: Types | undefined;

export function mcpTransports(): Transports {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  transports ??= { ...require('@modelcontextprotocol/sdk/client/stdio.js'), ...require('@modelcontextprotocol/sdk/client/streamableHttp.js') } as Transports;
  return transports;
}

export function mcpTypes(): Types {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  types ??= require('@modelcontextprotocol/sdk/types.js') as Types;
  return types;
}
