import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { explainNondeterminism, replayHistoriesJson, replayWorkflowId } from '../../worker/replay';

describe('nondeterminism in plain words', () => {
  it('names the event and the command, in both of core\'s phrasings', () => {
    const withEvent = 'Nondeterminism error: ScheduleActivityMachine does not handle this event: HistoryEvent(id: 11, TimerStarted)';
    const withoutEvent = 'Nondeterminism error: UpsertWorkflowSearchAttributesMachine does not handle HistoryEvent(id: 5, WorkflowPropertiesModified)';
    expect(explainNondeterminism(withEvent)).toBe('at history event 11 (TimerStarted) the current code issued a different command (a ScheduleActivity command) than the one recorded');
    expect(explainNondeterminism(withoutEvent)).toBe(
      'at history event 5 (WorkflowPropertiesModified) the current code issued a different command (a UpsertWorkflowSearchAttributes command) than the one recorded',
    );
  });

  it('names both activity types when they differ, and a step the code no longer does', () => {
    expect(explainNondeterminism("Nondeterminism error: Activity type of scheduled event 'notes/a' does not match activity type of activity command 'notes/b'")).toBe(
      'the history scheduled activity "notes/a" but the current code schedules "notes/b" at that point',
    );
    expect(explainNondeterminism('Nondeterminism error: No command scheduled for event HistoryEvent(id: 9, MarkerRecorded)')).toBe(
      'history event 9 (MarkerRecorded) has no matching command in the current code: the code no longer does that step',
    );
  });
});

describe('replaying histories that cannot be replayed', () => {
  it('reports, never throws: a value that is not a history, and a bundle that does not load', async () => {
    const history: unknown = JSON.parse(readFileSync(join(__dirname, '../histories/0.13.0/basic.json'), 'utf8'));
    const outcomes = await replayHistoriesJson([{ events: 'not a history' }, history], { code: 'throw new Error("broken bundle")' });
    expect(outcomes).toHaveLength(2);
    expect(outcomes[0]).toMatchObject({ ok: false, kind: 'failure', problem: expect.stringMatching(/^not a workflow history: /) });
    expect(outcomes[1]).toMatchObject({ ok: false, kind: 'failure' });
  });
});

describe('the workflow id a history replays under', () => {
  const read = (name: string) => historyFromJSON(JSON.parse(readFileSync(join(__dirname, '../histories', name), 'utf8')));

  it("is a session's own id, read from its first run's start (its runs are named after it), in each of its executions", () => {
    expect(replayWorkflowId(read('0.13.0/session-two-runs.json'), 'replay-0')).toBe('session-two-runs');
    expect(replayWorkflowId(read('0.13.0/session-continue-as-new-continued.json'), 'replay-0')).toBe('session-continue-as-new');
    expect(replayWorkflowId(read('0.13.0/open-session-awaiting-approval.json'), 'replay-0')).toBe('session-awaiting-approval');
  });

  it('is the fallback for a run, a session run included', () => {
    expect(replayWorkflowId(read('0.13.0/basic.json'), 'replay-3')).toBe('replay-3');
    expect(replayWorkflowId(read('0.13.0/session-two-runs-run-1.json'), 'replay-3')).toBe('replay-3');
  });
});
