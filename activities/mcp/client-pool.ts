import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpTransports, mcpTypes } from './sdk';
import { checkMcpServers, type McpServerConfig } from './server-config';
import { toolListVersion, type ServerTool } from './list-version';

/** A server's tool list as this worker last fetched it. */
export interface ServerToolList {
  readonly version: string;
  readonly tools: readonly ServerTool[];
}

/** Options of one tool call through the pool. */
export interface PoolCallOptions {
  readonly signal?: AbortSignal;
  /** Sent as the request's `_meta` (e.g. the idempotency key). */
  readonly meta?: Record<string, unknown>;
  /** Limit of the request; progress notifications restart it. */
  readonly timeoutMs?: number;
  readonly onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

interface Connection {
  readonly client: Client;
  readonly transport: StdioClientTransport | StreamableHTTPClientTransport;
  /** The current list, or its fetch in flight; cleared when the server says its list changed. */
  list: Promise<ServerToolList> | undefined;
  closed: boolean;
}

/** Versions of a server's list kept for model calls of runs still on an older snapshot. */
const keptVersions = 8;

/**
 * Whether an error means the connection is unusable (the server went away, the transport
 * failed), rather than the server answering a request with an error.
 */
export function isConnectionFailure(err: unknown): boolean {
  const { ErrorCode, McpError } = mcpTypes();
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed || err.code === ErrorCode.RequestTimeout;
  return true;
}

/**
 * The MCP clients of one worker: one connection per configured server, opened on first use,
 * shared by every run's activities, dropped (and opened again by the next use) when it fails,
 * and closed when the worker shuts down. Remembers each server's tool list and notices the
 * server's `notifications/tools/list_changed`, so calls can report the current list version.
 *
 * @throws Error (at construction) when a server's configuration is invalid.
 * @example
 * const pool = new McpClientPool({ files: { transport: 'stdio', command: 'mcp-server-files', args: ['/data'] } });
 */
export class McpClientPool {
  private readonly connections = new Map<string, Promise<Connection>>();
  private readonly lists = new Map<string, Map<string, ServerToolList>>();
  private closing = false;

  constructor(
    private readonly servers: Readonly<Record<string, McpServerConfig>>,
    private readonly clientInfo = { name: 'durable-agents', version: '0.4.0' },
  ) {
    checkMcpServers(servers);
  }

  /** Names of the configured servers. */
  get serverNames(): string[] {
    return Object.keys(this.servers).sort();
  }

  has(server: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.servers, server);
  }

  /** The process id of a stdio server's current process (diagnostics and tests). */
  async processId(server: string): Promise<number | undefined> {
    const connection = await this.connections.get(server);
    return connection && connection.transport instanceof mcpTransports().StdioClientTransport ? (connection.transport.pid ?? undefined) : undefined;
  }

  /**
   * The server's tool list: fetched on first use and again after the server announced a change
   * (or after a reconnect).
   *
   * @throws Error when the server is not configured or cannot be reached.
   */
  async listTools(server: string): Promise<ServerToolList> {
    const connection = await this.connection(server);
    if (!connection.list) {
      // Shared by concurrent callers, so no caller's cancellation aborts it for the others.
      const fetching = this.fetchList(server, connection);
      connection.list = fetching;
      fetching.catch(() => {
        if (connection.list === fetching) connection.list = undefined;
      });
    }
    return connection.list;
  }

  /** A list of this server this worker has seen, by version (newest few). */
  knownList(server: string, version: string): ServerToolList | undefined {
    return this.lists.get(server)?.get(version);
  }

  /**
   * Calls a tool. A failed connection is dropped so the next call reconnects.
   *
   * @throws the client's error (McpError for errors the server answered with).
   */
  async callTool(server: string, name: string, args: Record<string, unknown>, options: PoolCallOptions = {}): Promise<CallToolResult> {
    const connection = await this.connection(server);
    try {
      const result = await connection.client.callTool({ name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) }, undefined, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs, resetTimeoutOnProgress: true } : {}),
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      });
      return result as CallToolResult;
    } catch (err) {
      if (!options.signal?.aborted && isConnectionFailure(err)) await this.drop(server, connection);
      throw err;
    }
  }

  /** Closes every connection (stdio servers exit); a later use connects again. */
  async close(): Promise<void> {
    this.closing = true;
    const all = [...this.connections.entries()];
    this.connections.clear();
    try {
      await Promise.all(
        all.map(async ([, pending]) => {
          const connection = await pending.catch(() => undefined);
          if (!connection || connection.closed) return;
          connection.closed = true;
          // An HTTP server keeps a session per client until told it is over.
          if (connection.transport instanceof mcpTransports().StreamableHTTPClientTransport) await connection.transport.terminateSession().catch(() => undefined);
          await connection.client.close().catch(() => undefined);
        }),
      );
    } finally {
      this.closing = false;
    }
  }

  private connection(server: string): Promise<Connection> {
    if (this.closing) return Promise.reject(new Error(`the MCP client pool is closing (the worker is shutting down); server ${server} cannot be used now`));
    const existing = this.connections.get(server);
    if (existing) return existing;
    const config = this.servers[server];
    if (!config) return Promise.reject(new Error(`MCP server ${JSON.stringify(server)} is not configured on this worker; it has: ${this.serverNames.join(', ') || '(none)'}`));
    const connecting = this.connect(server, config);
    this.connections.set(server, connecting);
    connecting.catch(() => {
      if (this.connections.get(server) === connecting) this.connections.delete(server);
    });
    return connecting;
  }

  private async connect(server: string, config: McpServerConfig): Promise<Connection> {
    // Loaded on the first connection: the MCP client (its JSON Schema validator among its 140
    // modules) takes about 80 ms to load, which every worker paid, MCP or not.
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport, StreamableHTTPClientTransport, getDefaultEnvironment } = mcpTransports();
    const { ToolListChangedNotificationSchema } = mcpTypes();
    const transport =
      config.transport === 'stdio'
        ? new StdioClientTransport({
            command: config.command,
            ...(config.args ? { args: [...config.args] } : {}),
            env: { ...getDefaultEnvironment(), ...config.env },
            ...(config.cwd ? { cwd: config.cwd } : {}),
            stderr: config.stderr ?? 'inherit',
          })
        : new StreamableHTTPClientTransport(new URL(config.url), config.headers ? { requestInit: { headers: { ...config.headers } } } : undefined);
    const client = new Client(this.clientInfo, { capabilities: {} });
    const connection: Connection = { client, transport, list: undefined, closed: false };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      connection.list = undefined;
    });
    // Over streamable HTTP, a server that dies mid-call breaks the response stream; the transport
    // tries to resume it and then only reports the failure, leaving the call waiting for an answer
    // that cannot come. Closing the connection then fails the call at once (ConnectionClosed).
    client.onerror = (err) => {
      if (/Maximum reconnection attempts/i.test(err.message)) void this.drop(server, connection);
    };
    client.onclose = () => {
      connection.closed = true;
      void this.drop(server, connection);
    };
    try {
      await client.connect(transport);
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new Error(`could not connect to MCP server ${server} (${config.transport === 'stdio' ? config.command : config.url}): ${err instanceof Error ? err.message : String(err)}`);
    }
    return connection;
  }

  private async fetchList(server: string, connection: Connection): Promise<ServerToolList> {
    const tools: ServerTool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await connection.client.listTools(cursor ? { cursor } : undefined);
        for (const t of page.tools) tools.push({ name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), inputSchema: t.inputSchema as Record<string, unknown> });
        cursor = page.nextCursor;
      } while (cursor);
    } catch (err) {
      if (isConnectionFailure(err)) await this.drop(server, connection);
      throw err;
    }
    const list = { version: toolListVersion(tools), tools };
    const versions = this.lists.get(server) ?? new Map<string, ServerToolList>();
    versions.delete(list.version);
    versions.set(list.version, list);
    while (versions.size > keptVersions) versions.delete(versions.keys().next().value as string);
    this.lists.set(server, versions);
    return list;
  }

  /** Forgets a failed connection (so the next use reconnects) and closes it. */
  private async drop(server: string, connection: Connection): Promise<void> {
    const current = this.connections.get(server);
    if (current && (await current.catch(() => undefined)) === connection) this.connections.delete(server);
    if (!connection.closed) {
      connection.closed = true;
      await connection.client.close().catch(() => undefined);
    }
  }
}
