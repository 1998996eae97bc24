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
import { bundleAgentWorkflows } from '../../worker/create-worker';

const contractModules: Record<string, unknown>[] = [carriedState, control, events, hitl, json, mcp, messages, plan, points, run, session, tools];

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
    const bundle = await bundleAgentWorkflows(require.resolve('../support/workflows'));
    const inline = /sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)/.exec(bundle.code);
    expect(inline).not.toBeNull();
    const { sources } = JSON.parse(Buffer.from(inline![1]!, 'base64').toString('utf8')) as { sources: string[] };
    // The bundle does take the contract modules themselves (sanity check of the source list).
    expect(sources.some((s) => s.endsWith('contracts/run.ts'))).toBe(true);
    expect(sources.filter((s) => /contracts\/(index|schemas)\.ts$/.test(s))).toEqual([]);
  }, 120_000);
});
