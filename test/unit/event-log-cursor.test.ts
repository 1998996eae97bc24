import type { EventPage, RunEvent } from '../../contracts';
import { EventLogCursor } from '../../client/event-log-cursor';

const event = (seq: number, at: string): RunEvent => ({ seq, at, type: 'status_changed', from: 'running', to: 'running' }) as RunEvent;
const page = (epoch: string, events: RunEvent[], status: EventPage['status'] = 'running'): EventPage => ({
  epoch,
  events,
  status,
  nextAfterSeq: events.at(-1)?.seq ?? 0,
});

/** A reader of a log held in memory. */
const reader = (log: RunEvent[], epoch: string) => async (after: number, limit: number) => page(epoch, log.filter((e) => e.seq > after).slice(0, limit));

describe('EventLogCursor', () => {
  it('notices a new epoch only once one is known', () => {
    const cursor = new EventLogCursor();
    expect(cursor.isRewound(page('a', []))).toBe(false);
    cursor.accept(page('a', []));
    expect(cursor.isRewound(page('a', []))).toBe(false);
    expect(cursor.isRewound(page('b', []))).toBe(true);
  });

  it('a rewound log is replaced from the first seq whose event differs from what was passed on', async () => {
    const cursor = new EventLogCursor();
    cursor.accept(page('a', []));
    for (const e of [event(1, 't1'), event(2, 't2'), event(3, 't3'), event(4, 't4')]) cursor.passedOn(e);
    const rewound = [event(1, 't1'), event(2, 't2'), event(3, 'u3')];
    expect(await cursor.rewind(page('b', []), reader(rewound, 'b'), 0, 4)).toBe(3);
    expect(cursor.isRewound(page('b', []))).toBe(false);
  });

  it('a rewound log that ends before the last seq passed on is replaced from its end', async () => {
    const cursor = new EventLogCursor();
    cursor.accept(page('a', []));
    for (const e of [event(1, 't1'), event(2, 't2'), event(3, 't3')]) cursor.passedOn(e);
    expect(await cursor.rewind(page('b', []), reader([event(1, 't1')], 'b'), 0, 3)).toBe(2);
  });

  it('forgets what was replaced, so a second rewind compares with the new events', async () => {
    const cursor = new EventLogCursor();
    cursor.accept(page('a', []));
    for (const e of [event(1, 't1'), event(2, 't2')]) cursor.passedOn(e);
    expect(await cursor.rewind(page('b', []), reader([event(1, 't1'), event(2, 'u2')], 'b'), 0, 2)).toBe(2);
    cursor.passedOn(event(2, 'u2'));
    expect(await cursor.rewind(page('c', []), reader([event(1, 't1'), event(2, 'u2'), event(3, 'v3')], 'c'), 0, 2)).toBe(3);
  });
});
