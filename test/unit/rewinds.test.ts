import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import Long from 'long';
import { rewindsOf } from '../../history/rewinds';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const { WorkflowTaskFailedCause } = temporal.api.enums.v1;
const at = (seconds: number) => ({ seconds: Long.fromNumber(1_700_000_000 + seconds), nanos: 0 });

/** One workflow task that begins `turn` (a boundary marked by its memo change), from event `id` on. */
function boundaryTask(id: number, turn: number): HistoryEvent[] {
  return [
    { eventId: Long.fromNumber(id), eventTime: at(id), workflowTaskScheduledEventAttributes: {} },
    { eventId: Long.fromNumber(id + 1), eventTime: at(id), workflowTaskStartedEventAttributes: {} },
    { eventId: Long.fromNumber(id + 2), eventTime: at(id), workflowTaskCompletedEventAttributes: {} },
    { eventId: Long.fromNumber(id + 3), eventTime: at(id), workflowPropertiesModifiedEventAttributes: { upsertedMemo: { fields: { turnBoundary: defaultPayloadConverter.toPayload(turn) } } } },
  ];
}

function reset(id: number, reason: string): HistoryEvent {
  return {
    eventId: Long.fromNumber(id),
    eventTime: at(100),
    workflowTaskFailedEventAttributes: { cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW, baseRunId: 'run-1', newRunId: 'run-2', failure: { message: reason } },
  };
}

function signal(id: number, name: string, arg: unknown): HistoryEvent {
  return { eventId: Long.fromNumber(id), eventTime: at(100), workflowExecutionSignaledEventAttributes: { signalName: name, input: { payloads: [defaultPayloadConverter.toPayload(arg)] } } };
}

describe('rewinds read from a history', () => {
  it('names the executions, the time, the reason, the turn begun again and the corrections re-applied with the reset', () => {
    const correction = { kind: 'inject_message', role: 'user', content: 'use acct-2' };
    const events: HistoryEvent[] = [
      { eventId: Long.fromNumber(1), eventTime: at(0), workflowExecutionStartedEventAttributes: {} },
      ...boundaryTask(2, 0),
      { eventId: Long.fromNumber(6), eventTime: at(6), workflowTaskScheduledEventAttributes: {} },
      { eventId: Long.fromNumber(7), eventTime: at(6), workflowTaskStartedEventAttributes: {} },
      reset(8, 'wrong account'),
      signal(9, 'intervene', correction),
      signal(10, 'intervene', { kind: 'no_such_kind' }),
      signal(11, 'pause', { reason: 'not a correction' }),
      ...boundaryTask(12, 1),
      signal(16, 'intervene', { kind: 'inject_message', role: 'user', content: 'later: not part of the rewind' }),
    ];
    expect(rewindsOf(events)).toEqual([
      { runId: 'run-2', replacedRunId: 'run-1', time: new Date((1_700_000_000 + 100) * 1000).toISOString(), turn: 1, eventId: 8, reason: 'wrong account', corrections: [correction] },
    ]);
  });

  it('finds none in a history without a reset, and leaves the turn out while none has begun since', () => {
    expect(rewindsOf([{ eventId: Long.fromNumber(1), workflowExecutionStartedEventAttributes: {} }, ...boundaryTask(2, 0)])).toEqual([]);
    const [only] = rewindsOf([{ eventId: Long.fromNumber(1), workflowExecutionStartedEventAttributes: {} }, ...boundaryTask(2, 0), reset(6, 'rewind to turn 0')]);
    expect(only).not.toHaveProperty('turn');
    expect(only).toMatchObject({ eventId: 6, reason: 'rewind to turn 0', corrections: [] });
  });
});
