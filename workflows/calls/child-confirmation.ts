import type { RunInput } from '../../contracts/run';
import { runContext } from '../kernel/run-context';

/**
 * The confirmation a sub-agent run starts with: its parent's, as it stands when the call starts
 * (rules set on the parent since included), so a tool the parent's policy confirms or a rule
 * denies is confirmed or denied at every depth. A person's "always" is the run's own and is not
 * passed down. Nothing for a parent without a confirmation, or one of a release before 1.0.0
 * (`sub-agents-inherit-confirmation` rides on the baseline: its children started with none).
 */
export function childConfirmation(confirmation: RunInput['confirmation']): Pick<RunInput, 'confirmation'> {
  if (!hasConfirmation(confirmation) || !runContext().work.childrenInheritConfirmation) return {};
  // A copy: the parent's confirmation may change while the child runs (its rules reach the child by a signal, child-approval-rules.ts).
  return { confirmation: JSON.parse(JSON.stringify(confirmation)) as NonNullable<RunInput['confirmation']> };
}

/** Whether a confirmation asks anything of a run (a parsed input's defaults alone ask nothing). */
export function hasConfirmation(confirmation: RunInput['confirmation']): confirmation is NonNullable<RunInput['confirmation']> {
  if (!confirmation) return false;
  return confirmation.all === true || (confirmation.tools?.length ?? 0) > 0 || (confirmation.exempt?.length ?? 0) > 0 || confirmation.rules !== undefined || confirmation.notify === true;
}
