/**
 * The fast paths of contracts/fast-schemas.ts must give exactly what their zod schemas give:
 * same values, same key order, defaults applied, unknown keys dropped. Checked here on valid
 * values and on thousands of mutations of them (a key dropped, set to undefined or to a value
 * of another kind, an unknown key added): the fast path either gives zod's output or is not
 * sure. It must never accept what zod refuses, and it must take the common shapes itself.
 */
import { z } from 'zod';
import { inputMessageSchema, messageSchema, planResultSchema, runInputSchema, runPolicySchema, toolActivityResultSchema, toolCallSchema } from '../../contracts';
import { unsure, type FastCheck, type FastShape } from '../../contracts/fast-parse';
import {
  breakpointShape,
  fastPlanResult,
  fastRunInput,
  fastRunPolicy,
  fastToolActivityResult,
  fastToolCall,
  finalResponseShape,
  inputMessageShape,
  messageShapes,
  parentShape,
  planShapes,
  runInputShape,
  runPolicyShape,
  toolActivityResultShape,
  toolCallShape,
} from '../../contracts/fast-schemas';
import { parseRunInput } from '../../contracts/fast-schemas';
import { fastScriptedPlannerOptions, scriptedPlannerOptionsSchema, scriptedPlannerOptionsShape, scriptStepSchema, scriptStepShapes } from '../../workflows/planners/scripted';

class Point {
  constructor(readonly x = 1) {}
}

/** Values of every kind, and the edges of the checks the mirrors repeat. */
const palette: unknown[] = [
  undefined, null, true, false, 0, -0, 1, 2, 1.5, -1, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, 1e300,
  '', 'x', 'user', 'system', 'tool_calls', 'final', 'a.b', 'a..b', 'x'.repeat(201), '\ud800',
  [], ['x'], [1], [{}], {}, { a: 1 }, { text: 'x' }, Object.create(null), new Map(), new Date(0), new Point(), () => 1,
];

/** Key structure of a value, so key order counts (toStrictEqual ignores it). */
function keyShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyShape);
  if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => [k, keyShape(v)]);
  return typeof value;
}

/** A deep copy in this realm (structuredClone's objects have another realm's prototype). */
function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map(clone) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)])) as T;
  }
  return value;
}

/** The value with one object key at `path` changed (or removed, for `remove`). */
const remove = Symbol('remove');
function mutated(base: unknown, path: readonly (string | number)[], next: unknown): unknown {
  const copy = clone(base);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (next === remove) delete node[last];
  else node[last] = next;
  return copy;
}

/** Every path to a key or element of plain objects and arrays, up to `depth` levels down. */
function paths(value: unknown, depth = 4, prefix: (string | number)[] = []): (string | number)[][] {
  if (depth === 0 || !value || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([k, v]) => [[...prefix, k], ...paths(v, depth - 1, [...prefix, k])]);
}

/** Compares one value; returns whether the fast path took it. */
function compare(schema: z.ZodType, check: FastCheck, value: unknown): boolean {
  const fast = check(value);
  if (fast === unsure) return false;
  const ref = schema.safeParse(value);
  if (!ref.success) throw new Error(`fast path accepted what zod refuses: ${JSON.stringify(value)}: ${ref.error.message}`);
  expect(fast).toStrictEqual(ref.data);
  expect(keyShape(fast)).toEqual(keyShape(ref.data));
  return true;
}

/** The base values, then every mutation of them: zod's output or unsure, every time. */
function checkAgainstZod(schema: z.ZodType, check: FastCheck, bases: readonly unknown[]): { fast: number; total: number } {
  let fast = 0;
  let total = 0;
  for (const base of bases) {
    expect(compare(schema, check, base)).toBe(true);
    for (const path of paths(base)) {
      for (const next of [remove, ...palette]) {
        total += 1;
        if (compare(schema, check, mutated(base, path, next))) fast += 1;
      }
    }
    if (base && typeof base === 'object' && !Array.isArray(base)) {
      total += 1;
      if (compare(schema, check, { ...base, unknownKey: 1 })) fast += 1;
    }
  }
  return { fast, total };
}

/** The object schema under lazy, optional, default and array wrappers. */
function inner(schema: z.ZodType): z.ZodType {
  let s = schema as unknown as { _zod: { def: { type: string; getter?: () => z.ZodType; innerType?: z.ZodType; element?: z.ZodType } } };
  for (;;) {
    const def = s._zod.def;
    const next = def.type === 'lazy' ? def.getter!() : ['optional', 'default', 'nullable'].includes(def.type) ? def.innerType : def.type === 'array' ? def.element : undefined;
    if (!next) return s as unknown as z.ZodType;
    s = next as unknown as typeof s;
  }
}
const shapeKeys = (schema: z.ZodType): string[] => Object.keys((inner(schema) as z.ZodObject).shape);
const optionByTag = (schema: z.ZodType, key: string, tag: string): z.ZodType =>
  (inner(schema) as unknown as z.ZodDiscriminatedUnion<z.ZodObject[]>).options.find((o) => (inner(o.shape[key] as z.ZodType) as z.ZodLiteral).value === tag)!;

const call = { id: 'c1', name: 'echo', args: { text: 'hi', n: [1, null, { deep: true }] }, dependsOn: ['c0'], outputPath: 'report.summary_1' };

describe('fast paths give what their schemas give', () => {
  it('every mirror lists exactly its schema fields, in order', () => {
    const runInput = inner(runInputSchema) as z.ZodObject;
    const pairs: [FastShape, string[]][] = [
      [toolCallShape, shapeKeys(toolCallSchema)],
      [planShapes.tool_calls, shapeKeys(optionByTag(planResultSchema, 'type', 'tool_calls'))],
      [planShapes.final, shapeKeys(optionByTag(planResultSchema, 'type', 'final'))],
      [finalResponseShape, shapeKeys((inner(optionByTag(planResultSchema, 'type', 'final')) as z.ZodObject).shape.response as z.ZodType)],
      [toolActivityResultShape, shapeKeys(toolActivityResultSchema)],
      [runInputShape, shapeKeys(runInputSchema)],
      [runPolicyShape, shapeKeys(runPolicySchema)],
      [inputMessageShape, shapeKeys(inputMessageSchema)],
      [breakpointShape, shapeKeys(runInput.shape.breakpoints as z.ZodType)],
      [parentShape, shapeKeys(runInput.shape.parent as z.ZodType)],
      [scriptedPlannerOptionsShape, shapeKeys(scriptedPlannerOptionsSchema)],
      [scriptStepShapes.tool_calls, shapeKeys(optionByTag(scriptStepSchema, 'type', 'tool_calls'))],
      [scriptStepShapes.final, shapeKeys(optionByTag(scriptStepSchema, 'type', 'final'))],
      ...(['system', 'user', 'assistant', 'tool'] as const).map((role): [FastShape, string[]] => [messageShapes[role], shapeKeys(optionByTag(messageSchema, 'role', role))]),
    ];
    for (const [mirror, keys] of pairs) expect(Object.keys(mirror)).toEqual(keys);
  });

  it("a run input's tenant: kept when it is a tenant id, refused naming the field when it is not", () => {
    const input = { agent: 'a', messages: [{ role: 'user', content: 'hi' }] };
    expect(parseRunInput({ ...input, tenant: 'acme' })).toMatchObject({ success: true, data: { tenant: 'acme' } });
    const refused = parseRunInput({ ...input, tenant: "x' OR 'a'='a" });
    expect(refused.success ? [] : refused.error.issues[0]?.path).toEqual(['tenant']);
  });

  it('tool calls', () => {
    const { fast, total } = checkAgainstZod(toolCallSchema, fastToolCall, [call, { name: 'add', args: 1 }, { name: 'x', args: null, id: undefined }]);
    expect(fast).toBeGreaterThan(total / 10);
  });

  it('plans: tool calls and final answers; awaits, notes and retry hints go to zod', () => {
    const bases = [
      { type: 'tool_calls', calls: [call, { name: 'add', args: { a: 1, b: 2 } }], text: 'doing it' },
      { type: 'final', response: { text: 'done', structured: { ok: [1, 2] } } },
      { type: 'final', response: { text: '' } },
    ];
    const { fast, total } = checkAgainstZod(planResultSchema, fastPlanResult, bases);
    expect(fast).toBeGreaterThan(total / 10);
    const rare = [
      { type: 'await', await: { items: [{ kind: 'clarification', id: 'q', question: 'which?' }] } },
      { type: 'final', response: { text: 'x' }, notes: [{ text: 'n' }] },
      { type: 'tool_calls', calls: [call], retryHint: { reason: 'missing_fields' } },
    ];
    for (const plan of rare) {
      expect(fastPlanResult(plan)).toBe(unsure);
      expect(planResultSchema.safeParse(plan).success).toBe(true);
    }
  });

  it('tool activity results', () => {
    const bases = [
      { result: { text: 'hi' } },
      { result: 'x', resultBytes: 3, attempt: 2, sessionStateChanges: { a: 1, b: null }, listVersion: 'v1' },
      { resultOmitted: true, resultOmittedReason: 'workflow_budget', resultPreview: 'abc', resultBytes: 10 },
      {},
    ];
    const { fast, total } = checkAgainstZod(toolActivityResultSchema, fastToolActivityResult, bases);
    expect(fast).toBeGreaterThan(total / 10);
  });

  it('run inputs, with every default applied', () => {
    const bases = [
      { agent: 'scripted', messages: [{ role: 'user', content: 'go' }], plannerOptions: { steps: [{ type: 'final', text: 'done' }] } },
      {
        agent: 'watchlist',
        messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'check AAPL' }],
        history: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'calling', toolCalls: [{ id: 't1', name: 'quote', args: { s: 'A' } }] },
          { role: 'tool', toolCallId: 't1', name: 'quote', content: '1' },
          { role: 'system', content: 's' },
        ],
        sessionId: 's-1',
        sessionState: { seen: ['A'], n: 1 },
        policy: { maxIterations: 5, parallelToolCalls: false, timeBudgetMs: 60_000, earlyDispatch: true },
        labels: { team: 'ops', '1': 'one' },
        breakpoints: [{ point: 'after_llm', once: true }, { point: 'before_tool', tool: 'quote' }],
        parent: { workflowId: 'p', toolCallId: 'c', path: ['p', 'c'] },
        continued: { anything: 'goes' },
      },
    ];
    const { fast, total } = checkAgainstZod(runInputSchema, fastRunInput, bases);
    expect(fast).toBeGreaterThan(total / 10);
    const withConfirmation = { ...bases[0], confirmation: { all: true } };
    expect(fastRunInput(withConfirmation)).toBe(unsure);
  });

  it('run policies (defaults, agent and run merged)', () => {
    const full = { maxIterations: 25, maxToolCalls: 100, maxConsecutiveFailures: 3, timeBudgetMs: 1_800_000, parallelToolCalls: true, toolResultByteBudget: 65_536, continueAsNewAfterEvents: 10_000 };
    const bases = [full, { ...full, maxTokens: 1000, maxModelCalls: 5, earlyDispatch: false, maxConcurrentToolCalls: 2 }];
    // Every field is a number or a flag: most mutations are invalid, and zod's to explain.
    const { fast, total } = checkAgainstZod(runPolicySchema, fastRunPolicy, bases);
    expect(fast).toBeGreaterThan(total / 20);
  });

  it("the scripted planner's options; await steps go to zod", () => {
    const bases = [
      {
        steps: [
          { type: 'tool_calls', calls: [call, { name: 'add', args: { a: 1 } }] },
          { type: 'final', text: 'done', structured: [1, { a: null }], reportObservations: true, reportContext: false },
        ],
        finalizeText: 'stopped: {reason}',
      },
    ];
    const { fast, total } = checkAgainstZod(scriptedPlannerOptionsSchema, fastScriptedPlannerOptions, bases);
    expect(fast).toBeGreaterThan(total / 10);
    const withAwait = { steps: [{ type: 'await', await: { items: [{ kind: 'clarification', id: 'q', question: 'which?' }] } }] };
    expect(fastScriptedPlannerOptions(withAwait)).toBe(unsure);
    expect(scriptedPlannerOptionsSchema.safeParse(withAwait).success).toBe(true);
  });

  it('takes the shapes every run and turn has, without zod', () => {
    const benchInput = {
      agent: 'scripted',
      messages: [{ role: 'user', content: 'benchmark' }],
      policy: { maxIterations: 1_000_000, maxToolCalls: 100_000_000, maxConsecutiveFailures: 1_000_000, timeBudgetMs: 604_800_000, parallelToolCalls: true },
      labels: { bench: 'true' },
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'echo', args: { text: 't0c0' } }] }] },
    };
    expect(fastRunInput(benchInput)).not.toBe(unsure);
    expect(fastPlanResult({ type: 'tool_calls', calls: [{ name: 'echo', args: { text: 't0c0' } }] })).not.toBe(unsure);
    expect(fastToolActivityResult({ result: { text: 't0c0' } })).not.toBe(unsure);
    expect(fastScriptedPlannerOptions(benchInput.plannerOptions)).not.toBe(unsure);
  });
});
