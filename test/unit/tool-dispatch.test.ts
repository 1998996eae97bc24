import { z } from 'zod';
import { defineTool, type ToolRequest } from '../../contracts';
import { prepareCall } from '../../workflows/calls/call-rules';
import { jsonSchemaOf } from '../../activities/model/agent-schemas';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import { createScriptedPlanner, defineAgent } from 'durable-agents/workflow';
import { implementTool } from 'durable-agents/worker';

const tool = defineTool({ name: 'lookup', description: 'd', input: z.object({ id: z.number(), mode: z.enum(['a', 'b']).default('a') }) });
const request = (name: string, args: unknown): ToolRequest => ({ toolCallId: 'c1', name, args: args as never, turn: 2 });

describe('prepareCall', () => {
  it('dispatches valid calls as the planner sent them, with the parsed arguments beside them', () => {
    const prepared = prepareCall([tool], request('lookup', { id: 1 }));
    expect(prepared).toMatchObject({ type: 'dispatch', request: { args: { id: 1 } }, args: { id: 1, mode: 'a' } });
  });

  it('a schema with a transform is parsed once, on the worker: the tool gets its output', async () => {
    const tags = defineTool({ name: 'tags', description: 'd', input: z.object({ csv: z.string().transform((s) => s.split(',')), limit: z.number().default(2) }) });
    const impl = implementTool(tags, ({ csv, limit }) => csv.slice(0, limit));
    const agent = defineAgent({ name: 'a', description: 'a', tools: [tags], createPlanner: createScriptedPlanner });
    const prepared = prepareCall([tags], request('tags', { csv: 'x,y,z' }));
    if (prepared.type !== 'dispatch') throw new Error('expected dispatch');
    const activity = createActivities({ agents: [agent], tools: [impl] })['a/tags']!;
    const input = { runId: 'r', agent: 'a', idempotencyKey: 'w/c1', resultByteBudget: 10_000, sessionState: {}, request: JSON.parse(JSON.stringify(prepared.request)) };
    await expect(new MockActivityEnvironment().run(activity, input)).resolves.toMatchObject({ result: ['x', 'y'] });
  });

  it('refuses an unknown tool with tool_unavailable and lists the tools', () => {
    const prepared = prepareCall([tool], request('nope', {}));
    expect(prepared.type).toBe('refused');
    if (prepared.type !== 'refused') return;
    expect(prepared.output).toMatchObject({ status: 'error', error: { type: 'tool_unknown' }, retryHint: { reason: 'tool_unavailable' } });
    expect(prepared.output.error?.message).toContain('lookup');
  });

  it('names missing fields', () => {
    const prepared = prepareCall([tool], request('lookup', {}));
    if (prepared.type !== 'refused') throw new Error('expected refusal');
    expect(prepared.output.retryHint).toMatchObject({ reason: 'missing_fields', missingFields: ['id'], priorInput: {} });
  });

  it('reports wrong types as invalid_arguments with the path', () => {
    const prepared = prepareCall([tool], request('lookup', { id: 'x' }));
    if (prepared.type !== 'refused') throw new Error('expected refusal');
    expect(prepared.output.retryHint?.reason).toBe('invalid_arguments');
    expect(prepared.output.error?.message).toMatch(/^invalid arguments for lookup: id: /);
  });
});

describe('a tool schema wrapped in z.lazy (built on first use)', () => {
  let built = 0;
  const lazyTool = defineTool({
    name: 'lookup',
    description: 'd',
    input: z.lazy(() => {
      built += 1;
      return z.object({ id: z.number(), mode: z.enum(['a', 'b']).default('a') });
    }),
  });

  it('is not built by defineTool, and once by the first call', () => {
    expect(built).toBe(0);
    expect(prepareCall([lazyTool], request('lookup', { id: 1 }))).toMatchObject({ type: 'dispatch', args: { id: 1, mode: 'a' } });
    prepareCall([lazyTool], request('lookup', { id: 2 }));
    expect(built).toBe(1);
  });

  it('refuses bad arguments as the eager schema does: missing fields named', () => {
    const prepared = prepareCall([lazyTool], request('lookup', {}));
    if (prepared.type !== 'refused') throw new Error('expected refusal');
    expect(prepared.output.retryHint).toMatchObject({ reason: 'missing_fields', missingFields: ['id'] });
  });

  it('gives the model the same JSON Schema as the eager one', () => {
    expect(jsonSchemaOf(lazyTool.input)).toEqual(jsonSchemaOf(tool.input));
    expect(jsonSchemaOf(lazyTool.input)).toMatchObject({ type: 'object', required: ['id'] });
  });
});

describe('defineTool local', () => {
  it('refuses a local tool with a heartbeat timeout: local activities cannot heartbeat', () => {
    expect(() => defineTool({ name: 'l', description: 'd', input: z.object({}), local: true, heartbeatTimeoutMs: 1000 })).toThrow(
      'defineTool: tool l is local and cannot heartbeat; drop heartbeatTimeoutMs or local',
    );
  });
});
