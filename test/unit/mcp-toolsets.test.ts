import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { carriedRunStateSchema, isToolSelected, matchesToolPattern, mcpToolset, toolApproval, type McpListToolsResult } from '../../contracts';
import { callResultToJson, errorResultText, toolListVersion, checkMcpServers } from '../../activities/mcp';
import { inputSchemaOf, RunToolsets, toolFromSpec } from '../../workflows/agents/toolsets';
import { defineAgent, defineTool } from '../../workflows';
import { createScriptedPlanner } from '../../workflows/planners/scripted';
import { DurableAgentsPlugin } from '../../worker/plugin';

const sumSchema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], $schema: 'http://json-schema.org/draft-07/schema#' };
const localNote = defineTool({ name: 'note', description: 'note', input: z.object({ text: z.string() }) });

function listResult(version: string, names: string[]): McpListToolsResult {
  return { version, total: names.length, tools: names.map((n) => ({ name: n, mcpName: n, description: `tool ${n}`, inputSchema: sumSchema })) };
}

describe('toolset filters', () => {
  it('a pattern without * matches the exact name only', () => {
    expect(matchesToolPattern('get-sum', 'get-sum')).toBe(true);
    expect(matchesToolPattern('get-sum', 'get-sums')).toBe(false);
  });

  it('* matches any run of characters, and other characters are literal', () => {
    expect(matchesToolPattern('get-*', 'get-env')).toBe(true);
    expect(matchesToolPattern('*.read', 'files.read')).toBe(true);
    expect(matchesToolPattern('*.read', 'filesxread')).toBe(false);
  });

  it('include keeps only matching tools, then exclude removes from them', () => {
    const filters = { include: ['get-*', 'echo'], exclude: ['get-env'] };
    expect(['echo', 'get-env', 'get-sum', 'other'].filter((n) => isToolSelected(filters, n))).toEqual(['echo', 'get-sum']);
  });

  it('without include every tool is kept but the excluded ones', () => {
    expect(['a', 'b'].filter((n) => isToolSelected({ exclude: ['b'] }, n))).toEqual(['a']);
  });
});

describe('mcpToolset definitions', () => {
  it('defaults the name to the server and sets call limits', () => {
    expect(mcpToolset({ server: 'files' })).toMatchObject({ kind: 'mcp', name: 'files', server: 'files', timeoutMs: 60_000, heartbeatTimeoutMs: 30_000, retry: {} });
  });

  it('refuses a server name that is not an identifier, naming it', () => {
    expect(() => mcpToolset({ server: 'my server' })).toThrow('mcpToolset: invalid server name "my server"');
  });

  it('refuses an empty filter pattern', () => {
    expect(() => mcpToolset({ server: 'files', include: [''] })).toThrow('mcpToolset files: include has an empty pattern');
  });

  it('an agent refuses two toolsets of one name', () => {
    expect(() =>
      defineAgent({ name: 'a', description: 'a', tools: [], toolsets: [mcpToolset({ server: 'x' }), mcpToolset({ server: 'y', name: 'x' })], createPlanner: createScriptedPlanner }),
    ).toThrow('agent a: two toolsets are named x');
  });

  it('approval: one policy for all tools, or per tool with a default', () => {
    expect(toolApproval(undefined, 'x')).toBe(false);
    expect(toolApproval(true, 'x')).toBe(true);
    expect(toolApproval({ tools: { write: true } }, 'write')).toBe(true);
    expect(toolApproval({ tools: { write: true } }, 'read')).toBe(false);
    expect(toolApproval({ default: true, tools: { read: false } }, 'read')).toBe(false);
    expect(toolApproval({ default: true, tools: { read: false } }, 'delete')).toBe(true);
  });
});

describe('MCP tool schemas in the workflow', () => {
  it('a JSON Schema becomes a zod schema that checks arguments like the server would', () => {
    const { schema, converted } = inputSchemaOf(sumSchema);
    expect(converted).toBe(true);
    expect(schema.safeParse({ a: 1, b: 2 }).success).toBe(true);
    expect(schema.safeParse({ a: 'one' }).success).toBe(false);
  });

  it('a schema zod cannot convert falls back to any JSON object (the server still validates)', () => {
    const { schema, converted } = inputSchemaOf({ type: 'object', properties: { x: { $ref: '#/definitions/missing' } } });
    expect(converted).toBe(false);
    expect(schema.safeParse({ anything: 1 }).success).toBe(true);
    expect(schema.safeParse('text').success).toBe(false);
  });

  it('a tool definition of a toolset carries its server, limits and approval', () => {
    const toolset = mcpToolset({ server: 'srv', name: 'ts', approval: { tools: { sum: true } }, timeoutMs: 5000 });
    const tool = toolFromSpec(toolset, { name: 'p_sum', mcpName: 'sum', description: 'adds', inputSchema: sumSchema });
    expect(tool).toMatchObject({ name: 'p_sum', timeoutMs: 5000, requiresConfirmation: true, mcp: { server: 'srv', toolset: 'ts', tool: 'sum' } });
  });
});

describe('the run\'s toolset snapshots', () => {
  const toolset = mcpToolset({ server: 'srv', name: 'ts' });

  it('a toolset never fetched is due for its initial list', () => {
    expect(new RunToolsets([toolset], [localNote]).due().map((d) => d.reason)).toEqual(['initial']);
  });

  it('applying a list makes its tools callable beside the local ones and logs tools_updated', () => {
    const sets = new RunToolsets([toolset], [localNote]);
    const { event } = sets.apply(toolset, listResult('v1', ['sum', 'echo']), 'initial');
    expect(event).toEqual({ type: 'tools_updated', toolset: 'ts', server: 'srv', version: 'v1', tools: ['sum', 'echo'], reason: 'initial' });
    expect(sets.tools().map((t) => t.name)).toEqual(['note', 'sum', 'echo']);
    expect(sets.due()).toEqual([]);
  });

  it('a call that reports another list version makes the toolset due as list_changed; the same version does not', () => {
    const sets = new RunToolsets([toolset], []);
    sets.apply(toolset, listResult('v1', ['sum']), 'initial');
    sets.observe('ts', 'v1');
    expect(sets.due()).toEqual([]);
    sets.observe('ts', 'v2');
    expect(sets.due().map((d) => d.reason)).toEqual(['list_changed']);
  });

  it('the same list again logs nothing, unless an operator asked for it', () => {
    const sets = new RunToolsets([toolset], []);
    sets.apply(toolset, listResult('v1', ['sum']), 'initial');
    expect(sets.apply(toolset, listResult('v1', ['sum']), 'list_changed').event).toBeUndefined();
    expect(sets.apply(toolset, listResult('v1', ['sum']), 'requested').event).toMatchObject({ reason: 'requested', version: 'v1', previousVersion: 'v1' });
  });

  it('MCP tools whose names a local tool already has are left out and reported', () => {
    const sets = new RunToolsets([toolset], [localNote]);
    expect(sets.apply(toolset, listResult('v1', ['note', 'sum']), 'initial').shadowed).toEqual(['note']);
    expect(sets.tools().filter((t) => t.name === 'note')).toEqual([localNote]);
  });

  it('snapshots and pending refreshes survive continue-as-new through the carried state', () => {
    const sets = new RunToolsets([toolset], []);
    sets.apply(toolset, listResult('v1', ['sum']), 'initial');
    sets.request('ts');
    const carried = sets.toCarried();
    const fixture = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'carried-run-state.v1.json'), 'utf8')) as Record<string, unknown>;
    const parsed = carriedRunStateSchema.parse({ ...fixture, ...carried });
    const restored = new RunToolsets([toolset], [], parsed);
    expect(restored.tools().map((t) => t.name)).toEqual(['sum']);
    expect(restored.due().map((d) => d.reason)).toEqual(['requested']);
  });

  it('agents without toolsets carry nothing and keep their own tool list', () => {
    const sets = new RunToolsets([], [localNote]);
    expect(sets.toCarried()).toEqual({});
    expect(sets.tools()).toEqual([localNote]);
    expect(sets.views()).toBeUndefined();
  });
});

describe('worker side of MCP', () => {
  it('the list version is a content hash, independent of tool and key order', () => {
    const a = toolListVersion([{ name: 'x', inputSchema: { type: 'object', properties: {} } }, { name: 'y', description: 'd', inputSchema: { properties: {}, type: 'object' } }]);
    const b = toolListVersion([{ name: 'y', description: 'd', inputSchema: { type: 'object', properties: {} } }, { name: 'x', inputSchema: { properties: {}, type: 'object' } }]);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(a).toBe(b);
    expect(toolListVersion([{ name: 'x', description: 'changed', inputSchema: {} }])).not.toBe(toolListVersion([{ name: 'x', inputSchema: {} }]));
  });

  it('binary content stays on the worker; text and structured content pass', () => {
    const json = callResultToJson({ content: [{ type: 'text', text: 'hi' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }], structuredContent: { n: 1 } });
    expect(json).toEqual({ content: [{ type: 'text', text: 'hi' }, { type: 'image', mimeType: 'image/png', omitted: 'binary data (4 base64 characters) is not passed to the run' }], structuredContent: { n: 1 } });
  });

  it('an error result\'s text becomes the error message', () => {
    expect(errorResultText({ content: [{ type: 'text', text: 'no such file' }], isError: true })).toBe('no such file');
    expect(errorResultText({ content: [], isError: true })).toBe('the tool reported an error without a message');
  });

  it('a server configuration with a bad field is refused, naming the server', () => {
    expect(() => checkMcpServers({ files: { transport: 'http', url: 'not a url' } })).toThrow(/mcpServers\.files: .*url/);
    expect(() => checkMcpServers({ files: { transport: 'stdio', command: '' } })).toThrow(/mcpServers\.files: .*command/);
  });
});

describe('DurableAgentsPlugin with MCP servers', () => {
  const agent = defineAgent({ name: 'assistant', description: 'a', tools: [], toolsets: [mcpToolset({ server: 'files' })], createPlanner: createScriptedPlanner });

  it('refuses a worker whose agent names a server it does not configure', () => {
    expect(() => new DurableAgentsPlugin({ agents: [agent], tools: [], openai: null, encryption: null })).toThrow(
      'agent assistant: toolset files uses MCP server files, which mcpServers does not configure (configured: none)',
    );
  });

  it('registers the list and call activities beside the model activity', () => {
    const plugin = new DurableAgentsPlugin({ agents: [agent], tools: [], openai: null, encryption: null, mcpServers: { files: { transport: 'stdio', command: 'mcp-files' } } });
    expect(plugin.activityTypes).toEqual(['callModel', 'mcp.callTool', 'mcp.listTools', 'session.deliverMessage', 'tenants.join', 'tenants.sweep']);
  });
});
