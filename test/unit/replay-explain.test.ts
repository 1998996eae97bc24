import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { explainNondeterminism, replayHistoriesJson } from '../../worker/replay';

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
    const history: unknown = JSON.parse(readFileSync(join(__dirname, '../histories/0.11.0/basic.json'), 'utf8'));
    const outcomes = await replayHistoriesJson([{ events: 'not a history' }, history], { code: 'throw new Error("broken bundle")' });
    expect(outcomes).toHaveLength(2);
    expect(outcomes[0]).toMatchObject({ ok: false, kind: 'failure', problem: expect.stringMatching(/^not a workflow history: /) });
    expect(outcomes[1]).toMatchObject({ ok: false, kind: 'failure' });
  });
});
