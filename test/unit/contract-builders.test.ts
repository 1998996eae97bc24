import { readFileSync } from 'node:fs';
import { z } from 'zod';
import * as schemas from '../../contracts/schemas';
import * as carriedState from '../../contracts/carried-state';
import * as control from '../../contracts/control';
import * as events from '../../contracts/events';
import * as hitl from '../../contracts/hitl';
import * as json from '../../contracts/json';
import * as mcp from '../../contracts/mcp';
import * as messages from '../../contracts/messages';
import * as plan from '../../contracts/plan';
import * as points from '../../contracts/points';
import * as run from '../../contracts/run';
import * as session from '../../contracts/session';
import * as tools from '../../contracts/tools';
import * as pricing from '../../contracts/pricing';
import { defineAgentTool, defineTool } from '../../contracts/tool-definition';
import { bundleAgentWorkflows } from '../../worker/create-worker';

const contractModules: Record<string, unknown>[] = [carriedState, control, events, hitl, json, mcp, messages, plan, points, pricing, run, session, tools];

/** The contract module's builder of a public schema, by name. */
function builderOf(name: string): () => z.ZodType {
  const found = contractModules.map((m) => m[name]).filter((v): v is () => z.ZodType => typeof v === 'function');
  if (found.length === 0) throw new Error(`no contract module has a builder named ${name}`);
  return found[0]!;
}

describe('contract schemas: builders for workflow code, z.lazy wrappers for everyone else', () => {
  const publicSchemas = Object.entries(schemas);

  it('every public schema is a z.lazy around the builder workflow code parses with (the same instance)', () => {
    expect(publicSchemas.length).toBeGreaterThan(50);
    for (const [name, schema] of publicSchemas) {
      expect([name, schema instanceof z.ZodLazy]).toEqual([name, true]);
      const build = builderOf(name);
      expect(build()).toBe(build());
      expect([name, (schema as z.ZodLazy<z.ZodType>).unwrap() === build()]).toEqual([name, true]);
    }
  });

  it('every public schema is whole: each field is a schema (a builder passed without calling it would not be)', () => {
    for (const [name, schema] of publicSchemas) {
      expect(() => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })).not.toThrow();
      expect(() => z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })).not.toThrow();
      expect([name, typeof schema.safeParse(null).success]).toEqual([name, 'boolean']);
    }
  });

  it('a builder built with its children parses as its wrapper does', () => {
    const input = { agent: 'a', messages: [{ role: 'user', content: 'hi' }], policy: { maxToolCalls: 3 }, breakpoints: [{ point: 'after_llm' }] };
    expect(run.runInputSchema().parse(input)).toEqual(schemas.runInputSchema.parse(input));
    const bad = { agent: 'a', messages: [], breakpoints: [{ point: 'nowhere' }] };
    expect(run.runInputSchema().safeParse(bad).error?.issues).toEqual(schemas.runInputSchema.safeParse(bad).error?.issues);
    expect(control.budgetChangeSchema().safeParse({}).success).toBe(false);
    expect(control.budgetChangeSchema().parse({ maxToolCalls: 5 })).toEqual({ maxToolCalls: 5 });
  });
});

describe('the workflow bundle', () => {
  it('leaves out the contracts barrel and its schema wrappers, which every execution would build', async () => {
    // The suite's bundle when the integration project's global setup built it (npm test), else built here.
    const built = process.env.DURABLE_AGENTS_TEST_BUNDLE;
    const code = built ? readFileSync(built, 'utf8') : (await bundleAgentWorkflows(require.resolve('../support/workflows'))).code;
    const inline = /sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)/.exec(code);
    expect(inline).not.toBeNull();
    const { sources } = JSON.parse(Buffer.from(inline![1]!, 'base64').toString('utf8')) as { sources: string[] };
    // The bundle does take the contract modules themselves (sanity check of the source list).
    expect(sources.some((s) => s.endsWith('contracts/run.ts'))).toBe(true);
    expect(sources.filter((s) => /contracts\/(index|schemas)\.ts$/.test(s))).toEqual([]);
  }, 120_000);
});

describe('defineTool: a schema given as a builder', () => {
  it('is built on the first read of input / output, once, and reads as the built schema from then on', () => {
    let built = 0;
    const tool = defineTool({
      name: 'echo',
      description: 'echo',
      input: () => {
        built += 1;
        return z.object({ text: z.string() });
      },
      output: () => z.object({ text: z.string() }),
    });
    expect(built).toBe(0);
    const input = tool.input;
    expect(input).toBeInstanceOf(z.ZodObject);
    expect(tool.input).toBe(input);
    expect(built).toBe(1);
    expect(tool.input.parse({ text: 'hi', extra: 1 })).toEqual({ text: 'hi' });
    expect(tool.output?.safeParse({ text: 1 }).success).toBe(false);
    expect(z.toJSONSchema(tool.input)).toMatchObject({ type: 'object', required: ['text'] });
  });

  it('a spread copy carries the built schema; a schema given directly stays the same object', () => {
    const schema = z.object({ n: z.number() });
    const direct = defineTool({ name: 'direct', description: 'd', input: schema });
    expect(direct.input).toBe(schema);
    const lazy = defineTool({ name: 'lazy', description: 'l', input: () => z.object({ n: z.number() }) });
    const local = defineTool({ ...lazy, local: true });
    expect(local.input).toBe(lazy.input);
    expect(Object.keys(local)).toEqual(expect.arrayContaining(['input', 'local']));
  });

  it('an agent tool keeps its builder lazy, and its default input is { task }', () => {
    let built = 0;
    const custom = defineAgentTool({
      name: 'research',
      description: 'r',
      agent: 'researcher',
      input: () => {
        built += 1;
        return z.object({ topic: z.string() });
      },
      toRun: (args) => ({ prompt: args.topic }),
    });
    expect(custom.subAgent?.agent).toBe('researcher');
    expect(built).toBe(0);
    expect(custom.input.parse({ topic: 'x' })).toEqual({ topic: 'x' });
    expect(built).toBe(1);
    const plain = defineAgentTool({ name: 'helper', description: 'h', agent: 'helper' });
    expect(plain.input.safeParse({ task: '' }).success).toBe(false);
    expect(plain.subAgent?.toRun({ task: 'go' })).toEqual({ prompt: 'go' });
  });

  it('a builder that returns no schema fails on first read, naming the tool and the field', () => {
    const tool = defineTool({ name: 'broken', description: 'b', input: (() => ({ text: 'not a schema' })) as unknown as () => z.ZodObject });
    expect(() => tool.input).toThrow('defineTool: the input builder of tool broken returned object, not a zod schema');
  });
});
