import { createHash } from 'node:crypto';
import { canonicalJson } from '../../contracts/canonical-json';

/** A tool of a server as `tools/list` gave it (the fields a run depends on). */
export interface ServerTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
}

/** Version of a server's tool list: a content hash (16 hex digits) of names, descriptions and schemas, independent of order. */
export function toolListVersion(tools: readonly ServerTool[]): string {
  const items = tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return createHash('sha256').update(canonicalJson(items)).digest('hex').slice(0, 16);
}
