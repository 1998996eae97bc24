import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { checkpointsOf } from '../../client/checkpoints';
import { concludeBoundaries, TurnBoundaries } from '../../workflows/turn-boundaries';

const corpus = join(__dirname, '../histories');

/** Every history of the replay corpus recorded by the versions `versions` accepts. */
function recordedHistories(versions: (version: string) => boolean): { name: string; events: temporal.api.history.v1.IHistoryEvent[] }[] {
  return readdirSync(corpus, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^\d+\.\d+\.\d+$/.test(d.name) && versions(d.name))
    .flatMap((d) =>
      readdirSync(join(corpus, d.name))
        .filter((f) => f.endsWith('.json'))
        .map((f) => ({ name: `${d.name}/${f}`, events: historyFromJSON(JSON.parse(readFileSync(join(corpus, d.name, f), 'utf8'))).events ?? [] })),
    );
}

function memoTurns(events: readonly temporal.api.history.v1.IHistoryEvent[]): number[] {
  return events.flatMap((e) => {
    const payload = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.turnBoundary;
    return payload ? [defaultPayloadConverter.fromPayload<number>(payload as temporal.api.common.v1.IPayload)] : [];
  });
}

describe('turn boundaries', () => {
  it('in runs recorded before 0.6.0, the boundaries are exactly their memo changes', () => {
    const histories = recordedHistories((v) => ['0.1.0', '0.2.0', '0.3.0', '0.4.0', '0.5.0'].includes(v));
    expect(histories.length).toBeGreaterThan(100);
    for (const { name, events } of histories) {
      expect({ name, turns: checkpointsOf(events).map((c) => c.turn) }).toEqual({ name, turns: memoTurns(events) });
    }
  });

  it('in runs since 0.6.0, each boundary is the task of its memo change or of its turn\'s first activity, and only the memo-less are found by activity', () => {
    const histories = recordedHistories((v) => ['0.6.0', '0.7.0', '0.8.0', '0.9.0', '0.10.0'].includes(v));
    expect(histories.length).toBeGreaterThan(30);
    let byActivity = 0;
    for (const { name, events } of histories) {
      const checkpoints = checkpointsOf(events);
      const memos = memoTurns(events);
      // Every memo change is a boundary; every other boundary is a turn's first activity, in the task before it.
      expect({ name, missing: memos.filter((t) => !checkpoints.some((c) => c.turn === t)) }).toEqual({ name, missing: [] });
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

  it('an activation that schedules a turn activity needs no memo change; one that does not gets it first', () => {
    const boundaries = new TurnBoundaries(true);
    const schedule = (activityId: string) => ({ scheduleActivity: { seq: 1, activityId, activityType: 'a/echo' } });
    const timer = { startTimer: { seq: 2 } };

    expect(concludeBoundaries([timer])).toEqual([timer]);

    boundaries.mark(3);
    const marked = [timer, schedule('turn-3/call_3_0')];
    expect(concludeBoundaries(marked)).toBe(marked);

    // Turn 4 was answered without an activity (e.g. refused), turn 5 scheduled one, turn 6 waits.
    boundaries.mark(4);
    boundaries.mark(5);
    boundaries.mark(6);
    const commands = concludeBoundaries([schedule('turn-5/call_5_0'), schedule('turn-60/x'), timer]);
    const memos = commands.flatMap((c) => {
      const payload = c.modifyWorkflowProperties?.upsertedMemo?.fields?.turnBoundary;
      return payload ? [defaultPayloadConverter.fromPayload<number>(payload as temporal.api.common.v1.IPayload)] : [];
    });
    expect(memos).toEqual([4, 6]);
    expect(commands.slice(0, 2).every((c) => c.modifyWorkflowProperties)).toBe(true);
    expect(commands).toHaveLength(5);
    // Concluded: the next activation starts with nothing pending.
    expect(concludeBoundaries([timer])).toEqual([timer]);
  });
});
