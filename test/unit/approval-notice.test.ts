import { noticeDeliveredEvent } from '../../workflows/calls/approval-notice';

describe('noticeDeliveredEvent', () => {
  it('makes the approval_notified event of a delivery', () => {
    expect(noticeDeliveredEvent('call_0_1', { notifier: 'webhook https://hooks.example', attempt: 7, status: 204, linkExpiresAt: '2030-01-07T09:00:00.000Z', keyId: 'notices-1' })).toEqual({
      type: 'approval_notified',
      toolCallId: 'call_0_1',
      notifier: 'webhook https://hooks.example',
      attempt: 7,
      status: 204,
      linkExpiresAt: '2030-01-07T09:00:00.000Z',
      keyId: 'notices-1',
    });
  });

  it('leaves out what an unsigned delivery lacks', () => {
    expect(noticeDeliveredEvent('c', { notifier: 'webhook https://hooks.example', attempt: 1, status: 200 })).toEqual({ type: 'approval_notified', toolCallId: 'c', notifier: 'webhook https://hooks.example', attempt: 1, status: 200 });
  });

  it('takes no answer that is not a delivery', () => {
    expect(noticeDeliveredEvent('c', { status: 204, linkExpiresAt: 'x' })).toBeUndefined();
    expect(noticeDeliveredEvent('c', { notifier: 'n', attempt: 0, status: 204 })).toBeUndefined();
    expect(noticeDeliveredEvent('c', null)).toBeUndefined();
  });

  it('bounds and mends the strings it records', () => {
    const event = noticeDeliveredEvent('c', { notifier: `webhook \uD800${'x'.repeat(500)}`, attempt: 2, status: 204 });
    expect(event?.notifier).toHaveLength(200);
    expect(event?.notifier).not.toContain('\uD800');
  });
});
