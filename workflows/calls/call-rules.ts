/**
 * The rules a call goes through before its activity, as plain functions (no Temporal import):
 * its check against the agent's tools ({@link prepareCall}), operators' queued edits and drops
 * ({@link modifiedCall}), whether a human must confirm it ({@link needsConfirmation}), and what a
 * human's decision makes of it ({@link decidedCall}). The turn machine (turn-machine.ts) asks them;
 * its driver takes the queue, records the events and waits for the decision.
 */
import { describeIssues } from '../../contracts/json';
import type { ParsedCallDecision } from '../../contracts/hitl';
import type { RunEventDraft } from '../../contracts/events';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { ToolOutput, ToolRequest } from '../../contracts/tools';
import type { RunInput } from '../../contracts/run';
import { ruleVerdict, type ApprovalRules, type RuleVerdict } from '../../contracts/approval-policy';
import type { ApprovalJudgement } from '../../contracts/approval-judge';
import { closedOutput, errorOutput } from '../kernel/outputs';
import { rejection } from '../kernel/failures';
import type { QueuedIntervention } from '../state/run-control';

/** Outcome of checking a call before scheduling: dispatch it, or close it with an error now. */
export type PreparedCall =
  | { type: 'dispatch'; request: ToolRequest; tool: ToolDefinition; /** The arguments as the tool's schema parsed them. */ args: unknown }
  | { type: 'refused'; output: ToolOutput };


function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** Names of required fields that were absent from the arguments, from a zod error. */
function missingFields(args: unknown, issues: readonly { code: string; path: readonly PropertyKey[] }[]): string[] {
  return issues
    .filter((i) => i.code === 'invalid_type' && i.path.length > 0 && valueAt(args, i.path) === undefined)
    .map((i) => i.path.map(String).join('.'));
}

/**
 * Checks a planner's call against the agent's tools: unknown tools and arguments that do
 * not match the schema are refused with a RetryHint, and no activity runs for them.
 */
export function prepareCall(tools: readonly ToolDefinition[], request: ToolRequest): PreparedCall {
  const tool = tools.find((t) => t.name === request.name);
  if (!tool) {
    const known = tools.map((t) => t.name).join(', ') || '(none)';
    return {
      type: 'refused',
      output: errorOutput(
        request,
        { type: 'tool_unknown', message: `unknown tool "${request.name}"; available tools: ${known}` },
        { reason: 'tool_unavailable', tool: request.name, message: `choose one of: ${known}` },
      ),
    };
  }
  const parsed = tool.input.safeParse(request.args);
  if (!parsed.success) {
    const missing = missingFields(request.args, parsed.error.issues);
    const message = `invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}`;
    return {
      type: 'refused',
      output: errorOutput(
        request,
        { type: 'invalid_arguments', message },
        {
          reason: missing.length ? 'missing_fields' : 'invalid_arguments',
          tool: tool.name,
          ...(missing.length ? { missingFields: missing } : {}),
          priorInput: request.args,
          message,
        },
      ),
    };
  }
  // Dispatch the arguments as the planner sent them: the worker parses them once, so defaults,
  // coercions and transforms apply exactly once (a transform's output need not parse again).
  return { type: 'dispatch', request, tool, args: parsed.data };
}

/** What operators' queued modifications make of a call: run it (edited, maybe), or close it (dropped); the events to record, in order. */
export interface ModifiedCall {
  readonly outcome: { readonly type: 'run'; readonly request: ToolRequest } | { readonly type: 'closed'; readonly output: ToolOutput };
  readonly events: readonly RunEventDraft[];
}

/**
 * Applies the edit and drop modifications queued for a call, in order: an edit whose arguments do
 * not match the tool is rejected (and the next one tried), a drop closes the call.
 */
export function modifiedCall(request: ToolRequest, queued: readonly QueuedIntervention[], tools: readonly ToolDefinition[]): ModifiedCall {
  const events: RunEventDraft[] = [];
  let current = request;
  for (const { id, intervention } of queued) {
    if (intervention.kind === 'drop_call') {
      events.push({ type: 'intervention_applied', id, source: 'operator', kind: 'drop_call', point: 'before_tool', detail: `dropped ${request.toolCallId}: ${intervention.reason}` });
      return { outcome: { type: 'closed', output: closedOutput(current, 'rejected', `dropped by operator: ${intervention.reason}`) }, events };
    }
    if (intervention.kind === 'edit_call') {
      const check = tools.find((t) => t.name === current.name)?.input.safeParse(intervention.args);
      if (check && !check.success) {
        events.push({ type: 'intervention_rejected', id, kind: 'edit_call', reason: `edited arguments do not match ${current.name}: ${describeIssues(check.error)}` });
        continue;
      }
      const detail = `${request.toolCallId} args ${JSON.stringify(current.args)} -> ${JSON.stringify(intervention.args)}`;
      events.push({ type: 'intervention_applied', id, source: 'operator', kind: 'edit_call', point: 'before_tool', detail });
      current = { ...current, args: intervention.args };
    }
  }
  return { outcome: { type: 'run', request: current }, events };
}

/** The run as confirmation reads it. */
export interface ConfirmationFacts {
  readonly confirmation: RunInput['confirmation'];
  readonly alwaysApproved: ReadonlySet<string>;
  readonly agent: string;
  readonly sessionId?: string;
}

/**
 * What a call needs before it runs: nothing (`run`), a person (`ask`), or what the run's approval
 * rules decided for it (`ruled`: a deny always; an allow only for a call that would have asked).
 * The first matching rule decides; a human's "always" for the tool stands above an `ask` rule.
 */
export function confirmationOf(tool: ToolDefinition, args: unknown, run: ConfirmationFacts): { readonly type: 'run' | 'ask' } | { readonly type: 'ruled' | 'judge'; readonly verdict: RuleVerdict } {
  const verdict = ruleVerdict(run.confirmation?.rules as ApprovalRules | undefined, { name: tool.name, args, agent: run.agent, ...(run.sessionId !== undefined ? { sessionId: run.sessionId } : {}) });
  if (verdict?.effect === 'deny') return { type: 'ruled', verdict };
  if (verdict?.effect === 'ask') return { type: run.alwaysApproved.has(tool.name) ? 'run' : 'ask' };
  if (verdict?.effect === 'judge') return run.alwaysApproved.has(tool.name) ? { type: 'run' } : { type: 'judge', verdict };
  const needed = needsConfirmation(tool, args, run);
  if (verdict?.effect === 'allow') return needed ? { type: 'ruled', verdict } : { type: 'run' };
  return { type: needed ? 'ask' : 'run' };
}

/** A decision on a waiting call: a person's, or one approval rules made (`rules` names them). */
export type RuledCallDecision = ParsedCallDecision & { readonly rules?: { readonly version: string; readonly rule: string } };

/** The decision approval rules make for a call, as a person's would be. */
export function ruledDecision(toolCallId: string, verdict: RuleVerdict): RuledCallDecision {
  const by = `rules ${verdict.version}/${verdict.rule}`;
  const rules = { version: verdict.version, rule: verdict.rule };
  if (verdict.effect === 'allow') return { decision: 'approve', toolCallId, always: false, by, rules };
  return { decision: 'reject', toolCallId, by, rules, reason: `denied by approval rule ${verdict.rule} (rules ${verdict.version})${verdict.reason ? `: ${verdict.reason}` : ''}` };
}

/**
 * What a judge's answer (or its failure) makes of a call: a decision of the rule's, or none (the
 * call goes to a person), and the `approval_judged` event that records it either way. Pure.
 */
export function judgedCall(toolCallId: string, verdict: RuleVerdict, judgement: ApprovalJudgement | { readonly failed: string }): { readonly decision?: RuledCallDecision; readonly event: RunEventDraft } {
  const judge = verdict.judge!;
  const rules = { version: verdict.version, rule: verdict.rule };
  const base = { type: 'approval_judged', toolCallId, evaluator: judge.evaluator, rules } as const;
  if ('failed' in judgement) return { event: { ...base, verdict: 'escalate', escalated: true, why: `the judge failed: ${judgement.failed}` } };
  const { verdict: said, confidence, reason } = judgement;
  const told = { verdict: said, ...(confidence !== undefined ? { confidence } : {}), ...(reason !== undefined ? { reason } : {}) };
  if (said === 'escalate') return { event: { ...base, ...told, escalated: true, why: 'the judge escalated' } };
  if ((confidence ?? 1) < judge.minConfidence) return { event: { ...base, ...told, escalated: true, why: `the judge is ${confidence} sure, below ${judge.minConfidence}` } };
  const by = `judge ${judge.evaluator} (rules ${verdict.version}/${verdict.rule})`;
  const decision: RuledCallDecision =
    said === 'approve'
      ? { decision: 'approve', toolCallId, always: false, by, rules }
      : { decision: 'reject', toolCallId, by, rules, reason: `rejected by judge ${judge.evaluator} (approval rule ${verdict.rule}, rules ${verdict.version})${reason ? `: ${reason}` : ''}` };
  return { decision, event: { ...base, ...told, escalated: false } };
}

/**
 * {@link decidedCall} for a person's decision or a rules' one: the rules' decision is recorded
 * with their version and rule, and a call they deny is answered with their reason.
 */
export function decisionOutcome(prepared: Extract<PreparedCall, { type: 'dispatch' }>, decision: RuledCallDecision, tools: readonly ToolDefinition[]): { readonly event: RunEventDraft; readonly next: PreparedCall } {
  const outcome = decidedCall(prepared, decision, tools);
  if (!decision.rules) return outcome;
  const event = { ...outcome.event, rules: decision.rules } as RunEventDraft;
  if (decision.decision !== 'reject') return { event, next: outcome.next };
  return { event, next: { type: 'refused', output: closedOutput(prepared.request, 'rejected', decision.reason) } };
}

/**
 * Whether a human must confirm a call: never for an exempt tool or one a human approved for
 * good, always when the run's confirmation names it (or all tools), otherwise as the tool says.
 *
 * @throws ApplicationFailure `hook_failed` when the tool's own rule throws (a bug in agent code).
 */
export function needsConfirmation(tool: ToolDefinition, args: unknown, run: { readonly confirmation: RunInput['confirmation']; readonly alwaysApproved: ReadonlySet<string>; readonly agent: string }): boolean {
  const policy = run.confirmation;
  if (policy?.exempt?.includes(tool.name) || run.alwaysApproved.has(tool.name)) return false;
  if (policy?.all || policy?.tools?.includes(tool.name)) return true;
  const flag = tool.requiresConfirmation;
  if (typeof flag !== 'function') return flag;
  try {
    return flag(args);
  } catch (err) {
    // A bug in agent code: retrying the workflow task would fail the same way forever.
    const message = err instanceof Error ? err.message : String(err);
    throw rejection(`agent ${run.agent}: requiresConfirmation of tool ${tool.name} threw: ${message}`, 'hook_failed');
  }
}

/** What a human's decision on a waiting call makes of it, and the event that records it. */
export function decidedCall(prepared: Extract<PreparedCall, { type: 'dispatch' }>, decision: ParsedCallDecision, tools: readonly ToolDefinition[]): { readonly event: RunEventDraft; readonly next: PreparedCall } {
  const { request } = prepared;
  const base = { toolCallId: request.toolCallId, ...(decision.by ? { by: decision.by } : {}), ...(decision.digest ? { digest: decision.digest } : {}) };
  switch (decision.decision) {
    case 'approve':
      return { event: { type: 'approval_decided', ...base, decision: 'approve', always: decision.always }, next: prepared };
    case 'reject':
      return {
        event: { type: 'approval_decided', ...base, decision: 'reject', reason: decision.reason },
        next: { type: 'refused', output: closedOutput(request, 'rejected', `rejected by a human: ${decision.reason}`) },
      };
    case 'edit':
    case 'replace': {
      const updated = { name: decision.decision === 'replace' ? decision.name : request.name, args: decision.args };
      return {
        event: { type: 'approval_decided', ...base, decision: decision.decision, original: { name: request.name, args: request.args }, updated },
        next: prepareCall(tools, { ...request, ...updated }),
      };
    }
  }
}

/**
 * A person's edit or replace makes another call than the one asked about: a deny rule of the run
 * refuses it as it would have refused the model's, with the rule's reason (a person's decision
 * never stands above a deny, as their "always" does not). Allow, ask and judge rules do not apply
 * to it: a person decided it. Any other decision, or a call no deny rule matches, goes on. Pure.
 */
export function deniedChange(decision: ParsedCallDecision, next: PreparedCall, facts: ConfirmationFacts): PreparedCall {
  if ((decision.decision !== 'edit' && decision.decision !== 'replace') || next.type !== 'dispatch') return next;
  const verdict = ruleVerdict(facts.confirmation?.rules as ApprovalRules | undefined, { name: next.tool.name, args: next.args, agent: facts.agent, ...(facts.sessionId !== undefined ? { sessionId: facts.sessionId } : {}) });
  if (verdict?.effect !== 'deny') return next;
  const denied = ruledDecision(next.request.toolCallId, verdict);
  return { type: 'refused', output: closedOutput(next.request, 'rejected', denied.decision === 'reject' ? denied.reason : `denied by approval rule ${verdict.rule}`) };
}
