import { z } from 'zod';
import { defineTool, type ToolRequest } from '../../contracts';
import { prepareCall } from '../../workflows/tool-dispatch';

const tool = defineTool({ name: 'lookup', description: 'd', input: z.object({ id: z.number(), mode: z.enum(['a', 'b']).default('a') }) });
const request = (name: string, args: unknown): ToolRequest => ({ toolCallId: 'c1', name, args: args as never, turn: 2 });

describe('prepareCall', () => {
  it('dispatches valid calls with schema defaults applied', () => {
    const prepared = prepareCall([tool], request('lookup', { id: 1 }));
    expect(prepared).toMatchObject({ type: 'dispatch', request: { args: { id: 1, mode: 'a' } } });
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
