import { noWorkerNotice } from '../../dashboard/no-worker';

describe("the dashboard's notice when no worker answers a run", () => {
  it('no worker polls: names the task queue and since when (the last poll), in UTC', () => {
    expect(noWorkerNotice({ taskQueue: 'agents', polled: false, lastSeen: '2026-01-01T11:58:40.123Z', reason: '' })).toBe(
      'No worker polls task queue agents since 2026-01-01 11:58:40 UTC: shown as its history records it. What it asks, and decisions and answers, need a worker.',
    );
  });

  it('none seen in the five minutes the server remembers', () => {
    expect(noWorkerNotice({ taskQueue: 'agents', polled: false, lastSeen: null, reason: '' })).toMatch(/^No worker polls task queue agents \(none in the last 5 minutes\): /);
  });

  it('a worker polled but did not answer', () => {
    expect(noWorkerNotice({ taskQueue: 'agents', polled: true, lastSeen: '2026-01-01T11:59:50.000Z', reason: '' })).toMatch(/^No worker answered \(task queue agents, last polled 2026-01-01 11:59:50 UTC\): /);
  });
});
