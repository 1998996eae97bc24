import { z } from 'zod';
import { defineTool, jsonByteLength, jsonValueSchema, planResultSchema, runInputSchema } from '../../contracts';
import { toolResultMessage } from '../../workflows/state/conversation';
import { EventLog, pageMaxBytes } from '../../workflows/state/event-log';

describe('contracts', () => {
  it('run input applies defaults and requires a message', () => {
    const parsed = runInputSchema.parse({ agent: 'a', messages: [{ role: 'user', content: 'hi' }] });
    expect(parsed).toMatchObject({ sessionState: {}, labels: {} });
    expect(runInputSchema.safeParse({ agent: 'a', messages: [] }).success).toBe(false);
  });

  it('run input rejects non-positive policy caps', () => {
    expect(runInputSchema.safeParse({ agent: 'a', messages: [{ role: 'user', content: 'x' }], policy: { maxToolCalls: 0 } }).success).toBe(false);
  });

  it('plan results discriminate on type and need at least one call', () => {
    expect(planResultSchema.safeParse({ type: 'tool_calls', calls: [] }).success).toBe(false);
    expect(planResultSchema.safeParse({ type: 'final', response: { text: 'x' } }).success).toBe(true);
    expect(planResultSchema.safeParse({ type: 'await', await: { items: [{ kind: 'clarification', id: 'q', question: 'which?' }] } }).success).toBe(true);
  });

  it('JSON values exclude undefined, functions and dates', () => {
    expect(jsonValueSchema.safeParse({ a: [1, 'x', null, { b: true }] }).success).toBe(true);
    expect(jsonValueSchema.safeParse({ a: undefined }).success).toBe(false);
    expect(jsonValueSchema.safeParse(new Date()).success).toBe(false);
  });

  it('measures UTF-8 JSON bytes like Buffer does', () => {
    for (const value of ['plain', 'héllo', '日本語', '🙂 emoji', { nested: ['ü', 1] }]) {
      expect(jsonByteLength(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
    }
  });

  it('defineTool rejects bad and reserved names', () => {
    expect(() => defineTool({ name: 'has space', description: 'd', input: z.object({}) })).toThrow(/invalid tool name/);
    expect(() => defineTool({ name: 'callModel', description: 'd', input: z.object({}) })).toThrow(/reserved/);
  });
});

describe('conversation', () => {
  it('closes failed calls with an error body so no call is left unanswered', () => {
    const message = toolResultMessage({
      toolCallId: 'c',
      name: 't',
      args: {},
      turn: 0,
      status: 'cancelled',
      resultBytes: 0,
      error: { type: 'cancelled', message: 'gone' },
      telemetry: { durationMs: 1 },
    });
    expect(message).toMatchObject({ role: 'tool', toolCallId: 'c' });
    expect(JSON.parse((message as { content: string }).content)).toEqual({ error: { type: 'cancelled', message: 'gone' } });
  });
});

describe('event log', () => {
  it('numbers events from 1 and pages after a seq', () => {
    const log = new EventLog();
    for (let i = 0; i < 5; i++) log.append({ type: 'signal_rejected', signal: 's', reason: String(i) });
    expect(log.lastSeq).toBe(5);
    const page = log.page(2, 2, 'running');
    expect(page.events.map((e) => e.seq)).toEqual([3, 4]);
    expect(page.nextAfterSeq).toBe(4);
    expect(log.page(5, 10, 'running')).toMatchObject({ events: [], nextAfterSeq: 5 });
  });

  it('stamps each event with the workflow time it was appended at', () => {
    const now = jest.spyOn(Date, 'now');
    try {
      const log = new EventLog();
      now.mockReturnValue(Date.UTC(2026, 10, 29, 12, 0, 0));
      log.append({ type: 'signal_rejected', signal: 's', reason: 'a' });
      log.append({ type: 'signal_rejected', signal: 's', reason: 'b' });
      now.mockReturnValue(Date.UTC(2026, 10, 29, 12, 0, 1, 5));
      log.append({ type: 'signal_rejected', signal: 's', reason: 'c' });
      expect(log.page(0, 10, 'running').events.map((e) => e.at)).toEqual(['2026-11-29T12:00:00.000Z', '2026-11-29T12:00:00.000Z', '2026-11-29T12:00:01.005Z']);
    } finally {
      now.mockRestore();
    }
  });

  it('pages by bytes too, so no answer nears gRPC\'s 4 MB limit; every event is reachable', () => {
    const log = new EventLog();
    for (let i = 0; i < 12; i++) log.append({ type: 'signal_rejected', signal: 's', reason: 'r'.repeat(400_000) });
    const seen: number[] = [];
    for (let after = 0; ; ) {
      const page = log.page(after, 1000, 'running');
      if (page.events.length === 0) break;
      expect(jsonByteLength(page)).toBeLessThan(pageMaxBytes + 1024);
      seen.push(...page.events.map((e) => e.seq));
      after = page.nextAfterSeq;
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    // One event larger than a page still comes, alone.
    log.append({ type: 'signal_rejected', signal: 's', reason: 'r'.repeat(pageMaxBytes + 10) });
    expect(log.page(12, 10, 'running').events.map((e) => e.seq)).toEqual([13]);
  });
});

describe('event log after continue-as-new', () => {
  it('tells a reader that fell behind the carried tail which events are gone', () => {
    const carried = [5, 6, 7].map((seq) => ({ seq, at: 't', type: 'signal_rejected' as const, signal: 's', reason: 'r' }));
    const log = new EventLog(8, carried);
    expect(log.page(0, 10, 'running')).toMatchObject({ missingBefore: 5, nextAfterSeq: 7 });
    expect(log.page(4, 10, 'running').missingBefore).toBeUndefined();
  });
});

describe('the operations table recognises its messages', () => {
  it('maps every operation\'s signal and update name back to the operation, and nothing else', () => {
    const { runOperationMessages, runOperationOf } = jest.requireActual<typeof import('../../contracts/operations')>('../../contracts/operations');
    for (const [op, messages] of Object.entries(runOperationMessages)) {
      expect([runOperationOf(messages.signal.name), runOperationOf(messages.update.name)]).toEqual([op, op]);
    }
    expect(runOperationOf('status')).toBeUndefined();
    expect(runOperationOf('childWaiting')).toBeUndefined();
  });
});
