import { runOperationOf, type RunOperationName } from '../../contracts/operations';
import type { JsonValue } from '../../contracts';
import { asRecord, decode, type HistoryEvent } from './history-decode';
import type { RecordedIntervention } from './recording-types';

export type { RecordedIntervention } from './recording-types';

/** What people sent a run, as its history records it: decisions, answers and interventions, each in order. */
export interface HumanInputs {
  readonly decisions: Readonly<Record<string, JsonValue>>[];
  readonly answers: Readonly<Record<string, JsonValue>>[];
  readonly interventions: Omit<RecordedIntervention, 'workflowId' | 'path'>[];
}

/** The `whenBusy` of a kill a session sent to end its active run for a message (`interrupt`, `rollback`), if it is one. */
function sessionEnding(kill: Record<string, JsonValue>): 'interrupt' | 'rollback' | undefined {
  const whenBusy = asRecord(kill.endedBy).whenBusy;
  return whenBusy === 'interrupt' || whenBusy === 'rollback' ? whenBusy : undefined;
}

/** Whether an intervention is a session message steered into the run (`whenBusy: steer`): an injected message naming it. */
function isSteer(intervention: Record<string, JsonValue>): boolean {
  return intervention.kind === 'inject_message' && typeof intervention.messageId === 'string';
}

/**
 * Eval's part of each row of the operations table (contracts/operations.ts): where an operation a
 * recorded run got goes, given its payload as sent, or null for one that changes no decision a
 * candidate would make. A row without its entry does not compile.
 */
const recorded: { readonly [N in RunOperationName]: ((arg: Record<string, JsonValue>, inputs: HumanInputs) => void) | null } = {
  answer: (arg, inputs) => inputs.answers.push(arg),
  decide: (arg, inputs) => inputs.decisions.push(arg),
  // A pause and a resume change no decision a candidate would make.
  pause: null,
  resume: null,
  kill: (arg, inputs) => inputs.interventions.push({ kind: sessionEnding(arg) ?? 'kill', intervention: arg }),
  intervene: (arg, inputs) => inputs.interventions.push({ kind: isSteer(arg) ? 'steer' : typeof arg.kind === 'string' ? arg.kind : 'unknown', intervention: arg }),
  setBudget: (arg, inputs) => inputs.interventions.push({ kind: 'set_budget', intervention: arg }),
  setApprovalRules: (arg, inputs) => inputs.interventions.push({ kind: 'set_approval_rules', intervention: arg }),
};

/**
 * The operations a recorded run's history carries (accepted updates and signals, by their names in
 * the operations table) that eval reports: decisions, answers, interventions, budget changes and
 * kills, in order.
 */
export function humanInputs(events: readonly HistoryEvent[]): HumanInputs {
  const inputs: HumanInputs = { decisions: [], answers: [], interventions: [] };
  for (const e of events) {
    const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    const signal = e.workflowExecutionSignaledEventAttributes;
    const name = update?.name ?? signal?.signalName;
    const operation = name ? runOperationOf(name) : undefined;
    // Not an operation: a query, the run's own signals (early calls, a child's waits).
    const record = operation ? recorded[operation] : null;
    if (!record) continue;
    record(asRecord(decode(update?.args ?? signal?.input)[0]) as Record<string, JsonValue>, inputs);
  }
  return inputs;
}
