import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { checkpointsOf } from '../../client/checkpoints';
import { concludeBoundaries, TurnBoundaries } from '../../workflows/turn-boundaries';

const corpus = join(__dirname, '../histories');

/** Every history of the replay corpus (runs recorded before 0.6.0). */
function recordedHistories(): { name: string; events: temporal.api.history.v1.IHistoryEvent[] }[] {
  return readdirSync(corpus, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^\d+\.\d+\.\d+$/.test(d.name))
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
    const histories = recordedHistories();
    expect(histories.length).toBeGreaterThan(100);
    for (const { name, events } of histories) {
      expect({ name, turns: checkpointsOf(events).map((c) => c.turn) }).toEqual({ name, turns: memoTurns(events) });
    }
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
