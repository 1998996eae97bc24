import { z } from 'zod';
import { describeIssues } from '../../contracts';

/** How a worker reaches an MCP server. Worker configuration: it may hold secrets, so it never enters a run's history. */
export type McpServerConfig =
  | {
      readonly transport: 'stdio';
      /** The program that runs the server (spawned by the worker, one process per worker). */
      readonly command: string;
      readonly args?: readonly string[];
      /** Environment of the server process, on top of a minimal safe one (PATH, HOME, …), never the worker's whole environment. */
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
      /** Where the server's stderr goes: `inherit` (default) or `ignore`. */
      readonly stderr?: 'inherit' | 'ignore';
    }
  | {
      readonly transport: 'http';
      /** The server's streamable HTTP endpoint, e.g. `http://localhost:3001/mcp`. */
      readonly url: string;
      /** Sent with every request (e.g. `Authorization`). */
      readonly headers?: Readonly<Record<string, string>>;
    };

const serverConfigSchema = z.discriminatedUnion('transport', [
  z.object({
    transport: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    stderr: z.enum(['inherit', 'ignore']).optional(),
  }),
  z.object({ transport: z.literal('http'), url: z.url({ protocol: /^https?$/ }), headers: z.record(z.string(), z.string()).optional() }),
]);

const serverNamePattern = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/**
 * Checks a worker's MCP server configuration.
 *
 * @throws Error naming the server and the field that is wrong.
 */
export function checkMcpServers(servers: Readonly<Record<string, McpServerConfig>>): void {
  for (const [name, config] of Object.entries(servers)) {
    if (!serverNamePattern.test(name)) throw new Error(`mcpServers: invalid server name ${JSON.stringify(name)}; use letters, digits, _ and - (max 64)`);
    const parsed = serverConfigSchema.safeParse(config);
    if (!parsed.success) throw new Error(`mcpServers.${name}: ${describeIssues(parsed.error)} (give { transport: 'stdio', command, args?, env? } or { transport: 'http', url, headers? })`);
  }
}
