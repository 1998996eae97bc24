import type { RunInput } from '../../contracts';
import type { ScriptStep } from '../../workflows/planners/scripted';

/** Run input for the scripted agent. */
export function scriptedInput(steps: ScriptStep[], extra: Partial<RunInput> = {}): RunInput {
  return {
    agent: 'scripted',
    messages: [{ role: 'user', content: 'follow the script' }],
    plannerOptions: { steps },
    ...extra,
  };
}

/** A tool_calls step. */
export function callStep(...calls: { name: string; args: unknown; id?: string }[]): ScriptStep {
  return { type: 'tool_calls', calls: calls.map((c) => ({ ...c, args: c.args as never })) };
}

/** A final step that reports every tool output it observed in `structured`. */
export function finalStep(text = 'done'): ScriptStep {
  return { type: 'final', text, reportObservations: true };
}

/** Shape of one entry of `structured` when `reportObservations` is set. */
export interface Observation {
  toolCallId: string;
  name: string;
  status: 'ok' | 'error' | 'cancelled';
  result?: unknown;
  resultOmitted?: boolean;
  resultBytes?: number;
  errorType?: string;
  errorMessage?: string;
  retryReason?: string;
}
