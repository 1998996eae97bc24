import type { ApprovalRules } from '../../contracts/approval-policy';
import type { ParsedRunInput } from '../../contracts/run';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { ToolRequest } from '../../contracts/tools';
import { confirmationOf, ruledDecision, type ConfirmationFacts, type RuledCallDecision } from '../calls/call-rules';
import type { RunState } from '../state/run-state';
import { passRulesToChildren } from '../calls/child-approval-rules';

/**
 * What new approval rules decide at once among the calls that wait for a person: a call a rule
 * now allows or denies is decided; any other call waits on. Pure.
 */
export function rulingsOf(waiting: readonly ToolRequest[], tools: readonly ToolDefinition[], facts: ConfirmationFacts): RuledCallDecision[] {
  return waiting.flatMap((request) => {
    const tool = tools.find((t) => t.name === request.name);
    if (!tool) return [];
    const need = confirmationOf(tool, request.args, facts);
    return need.type === 'ruled' ? [ruledDecision(request.toolCallId, need.verdict)] : [];
  });
}

/**
 * Replaces the run's approval rules (`setApprovalRules`): they live in the run's input, so the
 * next execution carries them; the waiting calls they decide are decided now, the open sub-agent
 * runs take them too, and the change is an `approval_rules_changed` event naming both.
 */
export function applyApprovalRules(run: RunState, rules: ApprovalRules): void {
  const input = run.input as { confirmation?: ParsedRunInput['confirmation'] };
  input.confirmation = { ...(input.confirmation ?? { all: false, tools: [], exempt: [] }), rules };
  const facts: ConfirmationFacts = { confirmation: input.confirmation, alwaysApproved: run.human.alwaysApproved, agent: run.agent.name, ...(run.input.sessionId !== undefined ? { sessionId: run.input.sessionId } : {}) };
  const decisions = rulingsOf(run.human.waitingRequests(), run.tools(), facts);
  for (const decision of decisions) run.human.decide(decision);
  const children = passRulesToChildren(run.children.values(), rules);
  run.emit({ type: 'approval_rules_changed', version: rules.version, decided: decisions.map((d) => d.toolCallId), ...(children.length ? { children } : {}) });
}
