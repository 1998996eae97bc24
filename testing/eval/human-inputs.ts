import { runOperationOf } from '../../contracts/operations';
import type { JsonValue } from '../../contracts';
import { asRecord, decode, type HistoryEvent } from './history-decode';

/**
 * An operator's correction the recorded run got, which a candidate does not: an intervention
 * (edited or dropped call, injected message, overridden instructions, blocked tool,
 * breakpoint, …), a budget change or a kill.
 */
export interface RecordedIntervention {
  /** The recorded run (of the tree) that got it. */
  readonly workflowId: string;
  /** Call path from the evaluated run to that run (empty: the evaluated run itself). */
  readonly path: readonly string[];
  /** The intervention's kind (`edit_call`, `drop_call`, `inject_message`, …), or `set_budget`, `kill`. */
  readonly kind: string;
  /** The request as sent. */
  readonly intervention: Readonly<Record<string, JsonValue>>;
}

/** What people sent a run, as its history records it: decisions, answers and interventions, each in order. */
export interface HumanInputs {
  readonly decisions: Readonly<Record<string, JsonValue>>[];
  readonly answers: Readonly<Record<string, JsonValue>>[];
  readonly interventions: Omit<RecordedIntervention, 'workflowId' | 'path'>[];
}

/** Accepted updates and signals of the decide, answer, intervene, set-budget and kill kinds, in order. */
export function humanInputs(events: readonly HistoryEvent[]): HumanInputs {
  const inputs: HumanInputs = { decisions: [], answers: [], interventions: [] };
  for (const e of events) {
    const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    const signal = e.workflowExecutionSignaledEventAttributes;
    const name = update?.name ?? signal?.signalName;
    if (!name) continue;
    const arg = asRecord(decode(update?.args ?? signal?.input)[0]) as Record<string, JsonValue>;
    switch (runOperationOf(name)) {
      case 'decide':
        inputs.decisions.push(arg);
        break;
      case 'answer':
        inputs.answers.push(arg);
        break;
      case 'intervene':
        inputs.interventions.push({ kind: typeof arg.kind === 'string' ? arg.kind : 'unknown', intervention: arg });
        break;
      case 'setBudget':
        inputs.interventions.push({ kind: 'set_budget', intervention: arg });
        break;
      case 'kill':
        inputs.interventions.push({ kind: 'kill', intervention: arg });
        break;
      default:
        // pause and resume change no decision a candidate would make; other messages are not operations.
        break;
    }
  }
  return inputs;
}
