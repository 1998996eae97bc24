import { getExternalWorkflowHandle } from '@temporalio/workflow';
import type { ApprovalRules } from '../../contracts/approval-policy';
import { setApprovalRulesSignal } from '../../contracts/definitions';
import type { ChildRun } from '../../contracts/run';
import { runContext } from '../kernel/run-context';

/** The sub-agent runs a change of the parent's approval rules reaches: those still running. Pure. */
export function openChildren(children: Iterable<ChildRun>): string[] {
  return [...children].filter((child) => child.status === 'running').map((child) => child.workflowId);
}

/**
 * Passes a parent's new approval rules on to its open sub-agent runs (signal `setApprovalRules`):
 * each replaces its rules, judges its waiting calls again and passes them on to its own children,
 * so a change at the top reaches every depth. Only where children inherit the parent's
 * confirmation when they start (`sub-agents-inherit-confirmation`, the 1.0.0 baseline): the
 * children of an earlier run started with none. No command when no child runs.
 *
 * @returns the workflow ids of the runs it signalled.
 */
export function passRulesToChildren(children: Iterable<ChildRun>, rules: ApprovalRules): string[] {
  if (!runContext().work.childrenInheritConfirmation) return [];
  const reached = openChildren(children);
  // A child that ended meanwhile (or refuses) is no reason to fail the parent.
  for (const workflowId of reached) getExternalWorkflowHandle(workflowId).signal(setApprovalRulesSignal, rules).catch(() => undefined);
  return reached;
}
