import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import Long from 'long';
import { checkpointAt, checkpointsOf, turnsBegun } from '../../history/checkpoints';
import { concludeBoundaries, TurnBoundaries } from '../../workflows/run/turn-boundaries';
import { runContext } from '../../workflows/kernel/run-context';
import { retiredHistories } from '../support/histories';

function memoTurns(events: readonly temporal.api.history.v1.IHistoryEvent[]): number[] {
  return events.flatMap((e) => {
    const payload = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.turnBoundary;
    return payload ? [defaultPayloadConverter.fromPayload<number>(payload as temporal.api.common.v1.IPayload)] : [];
  });
}

/** Each memo change's turn, with the workflow task (its WorkflowTaskCompleted event id) that wrote it. */
function memoTasks(events: readonly temporal.api.history.v1.IHistoryEvent[]): { task: number; turn: number }[] {
  let task = 0;
  return events.flatMap((e) => {
    if (e.workflowTaskCompletedEventAttributes) task = Number(e.eventId);
    return memoTurns([e]).map((turn) => ({ task, turn }));
  });
}

const schedule = (activityId: string) => ({ scheduleActivity: { seq: 1, activityId, activityType: 'a/echo' } });
const timer = { startTimer: { seq: 2 } };
const memosOf = (commands: ReturnType<typeof concludeBoundaries>): number[] =>
  commands.flatMap((c) => {
    const payload = c.modifyWorkflowProperties?.upsertedMemo?.fields?.turnBoundary;
    return payload ? [defaultPayloadConverter.fromPayload<number>(payload as temporal.api.common.v1.IPayload)] : [];
  });

describe('turn boundaries', () => {
  it('in runs recorded before 0.6.0, the boundaries are their memo changes, the first of each workflow task', () => {
    // Retired from the corpus (test/histories/RETIRED), read from git: such runs can still be open on 0.13.x workers.
    const retired = ['0.1.0', '0.2.0', '0.3.0', '0.4.0', '0.5.0'].map(retiredHistories);
    if (retired.some((v) => v === undefined)) return console.warn('not a git checkout: the histories before 0.6.0 are not read');
    const histories = retired.flatMap((v) => v ?? []).map(({ name, json }) => ({ name, events: historyFromJSON(json).events ?? [] }));
    expect(histories.length).toBeGreaterThan(100);
    let shared = 0;
    for (const { name, events } of histories) {
      const firstOfTask = new Map<number, number>();
      for (const { task, turn } of memoTasks(events)) if (!firstOfTask.has(task)) firstOfTask.set(task, turn);
      shared += memoTurns(events).length - firstOfTask.size;
      expect({ name, checkpoints: checkpointsOf(events).map((c) => [c.turn, c.eventId]) }).toEqual({ name, checkpoints: [...firstOfTask].map(([task, turn]) => [turn, task]) });
    }
    // Some runs of the corpus began two turns in one task (a turn whose calls were all refused, …).
    expect(shared).toBeGreaterThan(0);
  });

  it('in runs since 0.6.0, each boundary is the task of its memo change or of its turn\'s first activity, and only the memo-less are found by activity', () => {
    // Retired from the corpus (test/histories/RETIRED), read from git: the reader still lists their boundaries.
    const retired = ['0.9.0', '0.10.0', '0.11.0'].map(retiredHistories);
    if (retired.some((v) => v === undefined)) return console.warn('not a git checkout: the histories of 0.9.0 to 0.11.0 are not read');
    const histories = retired.flatMap((v) => v ?? []).map(({ name, json }) => ({ name, events: historyFromJSON(json).events ?? [] }));
    expect(histories.length).toBeGreaterThan(30);
    let byActivity = 0;
    for (const { name, events } of histories) {
      const checkpoints = checkpointsOf(events);
      const memos = memoTurns(events);
      // Every memo change is a boundary, or its task is the boundary of an earlier turn; every
      // other boundary is a turn's first activity, in the task before it.
      const missing = memoTasks(events).filter(({ task, turn }) => !checkpoints.some((c) => c.turn === turn || (c.eventId === task && c.turn < turn)));
      expect({ name, missing }).toEqual({ name, missing: [] });
      expect({ name, tasks: checkpoints.length }).toEqual({ name, tasks: new Set(checkpoints.map((c) => c.eventId)).size });
      for (const c of checkpoints.filter((c) => !memos.includes(c.turn))) {
        byActivity += 1;
        const first = events.find((e) => e.activityTaskScheduledEventAttributes?.activityId?.startsWith(`turn-${c.turn}/`));
        const taskBefore = events.filter((e) => e.workflowTaskCompletedEventAttributes && Number(e.eventId) < Number(first?.eventId)).at(-1);
        expect({ name, turn: c.turn, eventId: c.eventId }).toEqual({ name, turn: c.turn, eventId: Number(taskBefore?.eventId) });
      }
      // Turns are listed in order, one boundary each.
      expect({ name, turns: checkpoints.map((c) => c.turn) }).toEqual({ name, turns: [...new Set(checkpoints.map((c) => c.turn))].sort((a, b) => a - b) });
    }
    // Most boundaries of the corpus need no memo change any more.
    expect(byActivity).toBeGreaterThan(30);
  });

  it('only the first boundary of a workflow task is marked: by its activity, or by a memo change when it schedules none', () => {
    const boundaries = new TurnBoundaries(true);
    let historyLength = 3;
    const task = () => historyLength;

    // Turns 0 and 1 begin in one task (local tools): turn 0 gets the memo change, turn 1 nothing.
    boundaries.mark(0);
    expect(memosOf(concludeBoundaries([timer], task))).toEqual([0]);
    boundaries.mark(1);
    expect(concludeBoundaries([timer], task)).toEqual([timer]);

    // Turns 2..4 in one activation of the next task: the first is the task's; its activity names it.
    historyLength = 9;
    boundaries.mark(2);
    boundaries.mark(3);
    boundaries.mark(4);
    const first = [schedule('turn-2/call_2_0'), timer];
    expect(concludeBoundaries(first, task)).toBe(first);
    boundaries.mark(5);
    const sameTask = [schedule('turn-5/call_5_0')];
    expect(concludeBoundaries(sameTask, task)).toBe(sameTask);

    // A new task whose first turn runs no activity gets its memo change.
    historyLength = 15;
    boundaries.mark(6);
    boundaries.mark(7);
    expect(memosOf(concludeBoundaries([timer], task))).toEqual([6]);
  });

  it('since first-task-begins-run, the run\'s first task begins turn 0 unmarked, and the turns after it in that task share it', () => {
    const boundaries = new TurnBoundaries(true);
    let historyLength = 3;
    const task = () => historyLength;
    boundaries.beginWithTask(0);
    expect(concludeBoundaries([timer], task)).toEqual([timer]);
    boundaries.mark(1);
    expect(concludeBoundaries([timer], task)).toEqual([timer]);
    historyLength = 9;
    boundaries.mark(2);
    expect(memosOf(concludeBoundaries([timer], task))).toEqual([2]);
    runContext().boundaries.taskBegun = undefined;
  });
});

describe('checkpoints of a history', () => {
  type Event = temporal.api.history.v1.IHistoryEvent;
  let id = 0;
  const event = (e: Omit<Event, 'eventId'>): Event => ({ ...e, eventId: Long.fromNumber(++id) });
  const taskCompleted = (): Event => event({ workflowTaskCompletedEventAttributes: {} });
  const memo = (turn: number): Event => event({ workflowPropertiesModifiedEventAttributes: { upsertedMemo: { fields: { turnBoundary: defaultPayloadConverter.toPayload(turn) } } } });
  const activity = (activityId: string): Event => event({ activityTaskScheduledEventAttributes: { activityId, activityType: { name: 'scripted/echo' } } });
  const baseline = (release = '0.11.0'): Event =>
    event({ markerRecordedEventAttributes: { markerName: 'core_patch', details: { patch_data: { payloads: [defaultPayloadConverter.toPayload({ id: `baseline-${release}`, deprecated: false })] } } } });
  const started = (continuedExecutionRunId?: string): Event => event({ workflowExecutionStartedEventAttributes: continuedExecutionRunId ? { continuedExecutionRunId } : {} });
  const taskScheduled = (): Event => event({ workflowTaskScheduledEventAttributes: {} });

  it('a task is one boundary: the turns that began in it after the first have none of their own', () => {
    id = 0;
    const events = [
      taskCompleted(), // 1: turns 0..2 run local tools in this task
      baseline(),
      memo(0),
      memo(1), // a run recorded before one-boundary-per-task marks every turn
      taskCompleted(), // 5: turn 3 schedules a remote call; a sequential second call comes a task later
      activity('turn-3/a'),
      taskCompleted(), // 7
      activity('turn-3/b'),
      taskCompleted(), // 9: turn 4 runs a local tool, then turn 5 schedules a remote call in the same task
      memo(4),
      activity('turn-5/c'),
    ];
    const checkpoints = checkpointsOf(events);
    expect(checkpoints.map((c) => [c.turn, c.eventId])).toEqual([
      [0, 1],
      [3, 5],
      [4, 9],
    ]);
    // The summary of a shared task counts every call of it.
    expect(checkpoints[2]?.summary.toolCalls).toEqual(['echo']);
    expect(() => checkpointAt(events, 'wf', 1)).toThrow(/turn 1 began in the workflow task that began turn 0 .* rewind to 0 instead; available: 0, 3\.\.4/);
    expect(() => checkpointAt(events, 'wf', 9)).toThrow(/no boundary after 9 turns in this execution; available: 0, 3\.\.4$/);
  });

  it('since 1.0.0 a run\'s first task begins turn 0 without a mark; a continued execution\'s first task names its turn', () => {
    id = 0;
    const fresh = [started(), taskScheduled(), taskCompleted(), baseline('1.0.0'), taskScheduled(), taskCompleted(), activity('turn-3/a')];
    expect(checkpointsOf(fresh).map((c) => [c.turn, c.eventId])).toEqual([
      [0, 3],
      [3, 6],
    ]);
    expect(turnsBegun(fresh)).toBe(2);
    id = 0;
    const continued = [started('previous-run'), taskScheduled(), taskCompleted(), baseline('1.0.0'), memo(7)];
    expect(checkpointsOf(continued).map((c) => [c.turn, c.eventId])).toEqual([[7, 3]]);
    id = 0;
    // Before 1.0.0 an unmarked first task is no boundary.
    const older = [started(), taskScheduled(), taskCompleted(), baseline('0.13.0')];
    expect(checkpointsOf(older)).toEqual([]);
  });
});
