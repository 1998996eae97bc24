import { z } from 'zod';
import type { JsonValue } from './json';
import { jsonValueSchema } from './json';
import { builtOnce } from './lazy';

/**
 * Approval rules: which tool calls run without asking (`allow`), are refused (`deny`), or wait
 * for a person (`ask`), by tool, agent, session and argument predicates. Part of a run's
 * `confirmation` (`confirmation.rules`); the first rule that matches a call decides it, and a
 * call no rule matches is confirmed as before (the tool's flag, `all`, `tools`, `exempt`). A rule's
 * decision is recorded in the run's events with the policy's version and the rule's id.
 */

/** A test of one argument, found by a dotted path (`amount`, `to.account`, `items.0.sku`). */
export const argumentPredicateSchema = builtOnce(() =>
  z.object({
    path: z.string().min(1).max(200),
    op: z.enum(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'exists', 'missing']),
    value: jsonValueSchema().optional(),
  }),
);
export type ArgumentPredicate = z.infer<ReturnType<typeof argumentPredicateSchema>>;

/**
 * A judge of a `judge` rule: an evaluator registered on the worker (`approvalJudges` of the
 * plugin: a function, or one that asks a model) that approves, rejects or escalates the call. The
 * call goes to a person when the judge escalates, fails, runs past `timeoutMs` or is less sure
 * than `minConfidence`.
 */
export const approvalJudgeSchema = builtOnce(() =>
  z.object({
    evaluator: z.string().min(1).max(100),
    minConfidence: z.number().min(0).max(1).default(0.5),
    timeoutMs: z.number().int().positive().max(600_000).default(30_000),
  }),
);

export const approvalRuleSchema = builtOnce(() =>
  z.object({
    id: z.string().min(1).max(100),
    /** `judge`: an evaluator decides, escalating to a person when unsure (see `judge`). */
    effect: z.enum(['allow', 'deny', 'ask', 'judge']),
    /** Required with `effect: 'judge'`. */
    judge: approvalJudgeSchema().optional(),
    /** Tool names the rule is about; `*` alone matches every tool, `prefix*` a family. Absent: every tool. */
    tools: z.array(z.string().min(1).max(200)).max(100).optional(),
    /** Agents the rule is about. Absent: every agent. */
    agents: z.array(z.string().min(1).max(200)).max(100).optional(),
    /** Sessions the rule is about (a run of one of them). Absent: any run, in a session or not. */
    sessions: z.array(z.string().min(1).max(200)).max(100).optional(),
    /** Every predicate must hold. */
    args: z.array(argumentPredicateSchema()).max(50).optional(),
    /** Said to the planner when the rule denies a call, and recorded with every decision of the rule. */
    reason: z.string().max(1_000).optional(),
  }),
);
export type ApprovalRule = z.infer<ReturnType<typeof approvalRuleSchema>>;

export const approvalRulesSchema = builtOnce(() =>
  z.object({
    /** Recorded with each decision the rules make, so a decision names the rules it came from. */
    version: z.string().min(1).max(100),
    rules: z
      .array(approvalRuleSchema())
      .max(500)
      .superRefine((rules, ctx) => {
        for (const [i, rule] of rules.entries()) {
          if (rule.effect === 'judge' && !rule.judge) ctx.addIssue({ code: 'custom', path: [i, 'judge'], message: 'a judge rule names its judge: { evaluator, minConfidence?, timeoutMs? }' });
        }
      }),
  }),
);
export type ApprovalRules = z.infer<ReturnType<typeof approvalRulesSchema>>;

/** A call as the rules see it, and where it runs. */
export interface RuledCall {
  readonly name: string;
  readonly args: unknown;
  readonly agent: string;
  readonly sessionId?: string;
}

/** What the rules make of a call: the first matching rule, or none. */
export type RuleVerdict = {
  readonly effect: ApprovalRule['effect'];
  readonly rule: string;
  readonly version: string;
  readonly reason?: string;
  readonly judge?: z.infer<ReturnType<typeof approvalJudgeSchema>>;
};

function nameMatches(patterns: readonly string[] | undefined, name: string): boolean {
  if (!patterns) return true;
  return patterns.some((p) => p === '*' || p === name || (p.endsWith('*') && name.startsWith(p.slice(0, -1))));
}

/** The value at a dotted path, or undefined when a step is missing. */
function valueAt(args: unknown, path: string): unknown {
  let value: unknown = args;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether one predicate holds. Comparisons hold only between two numbers or two strings. */
export function predicateHolds(predicate: ArgumentPredicate, args: unknown): boolean {
  const actual = valueAt(args, predicate.path);
  const expected = predicate.value as JsonValue | undefined;
  switch (predicate.op) {
    case 'exists':
      return actual !== undefined;
    case 'missing':
      return actual === undefined;
    case 'eq':
      return actual !== undefined && sameJson(actual, expected);
    case 'ne':
      return !sameJson(actual, expected);
    case 'in':
      return Array.isArray(expected) && expected.some((e) => sameJson(actual, e));
    default: {
      const comparable = (typeof actual === 'number' && typeof expected === 'number') || (typeof actual === 'string' && typeof expected === 'string');
      if (!comparable) return false;
      const [x, y] = [actual, expected] as [number, number];
      return predicate.op === 'lt' ? x < y : predicate.op === 'lte' ? x <= y : predicate.op === 'gt' ? x > y : x >= y;
    }
  }
}

/** The first rule that matches the call, as a verdict; undefined when none does. Pure. */
export function ruleVerdict(rules: ApprovalRules | undefined, call: RuledCall): RuleVerdict | undefined {
  if (!rules) return undefined;
  const rule = rules.rules.find(
    (r) =>
      nameMatches(r.tools, call.name) &&
      nameMatches(r.agents, call.agent) &&
      (!r.sessions || (call.sessionId !== undefined && r.sessions.includes(call.sessionId))) &&
      (r.args ?? []).every((p) => predicateHolds(p, call.args)),
  );
  if (!rule) return undefined;
  return { effect: rule.effect, rule: rule.id, version: rules.version, ...(rule.reason !== undefined ? { reason: rule.reason } : {}), ...(rule.judge ? { judge: rule.judge } : {}) };
}
