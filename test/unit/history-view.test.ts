import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { formatHistoryEntry, historyEntries, historySummary } from '../../client/history-view';
import { retiredHistories } from '../support/histories';

/**
 * A history of 0.2.0 (full tool inputs), retired from the replay corpus (test/histories/RETIRED)
 * and read from git: such runs can still be open on 0.13.x workers, and tools still read them.
 */
function recorded(name: string) {
  const json = retiredHistories('0.2.0')?.find((h) => h.name === `0.2.0/${name}.json`)?.json;
  if (json === undefined) throw new Error(`0.2.0/${name}.json: not in git history (this test needs a git checkout)`);
  return historyFromJSON(json).events ?? [];
}

describe('a run read from its history (no worker to answer queries)', () => {
  it('lists the start, each tool call with its arguments, and the result', () => {
    expect(historyEntries(recorded('basic')).map((e) => `${e.kind} ${e.detail}`)).toEqual([
      'run_started agent=scripted messages=1',
      'tool_call echo(call_0_0) {"text":"one"}',
      'tool_done echo',
      'tool_call add(call_1_0) {"a":1,"b":2}',
      'tool_done add',
      'run_completed completed: basic done',
    ]);
  });

  it('names the calls of compact tool inputs (0.6.0) from their activity ids and types', () => {
    const events = recorded('basic').map((e) => {
      const activity = e.activityTaskScheduledEventAttributes;
      const payload = activity?.input?.payloads?.[0];
      if (!activity || !payload?.data) return e;
      const { request } = JSON.parse(Buffer.from(payload.data).toString()) as { request: { toolCallId: string; args: unknown; turn: number } };
      const compact = { request: { args: request.args } };
      return {
        ...e,
        activityTaskScheduledEventAttributes: {
          ...activity,
          activityId: `turn-${request.turn}/${request.toolCallId}`,
          input: { payloads: [{ ...payload, data: Buffer.from(JSON.stringify(compact)) }] },
        },
      };
    });
    expect(historyEntries(events).filter((e) => e.kind === 'tool_call').map((e) => e.detail)).toEqual(['echo(call_0_0) {"text":"one"}', 'add(call_1_0) {"a":1,"b":2}']);
  });

  it('shows updates and signals by name, in order', () => {
    const steps = historyEntries(recorded('interventions')).map((e) => `${e.kind} ${e.detail}`);
    expect(steps.slice(0, 8)).toEqual([
      'run_started agent=scripted messages=1',
      'update interveneRun',
      'update interveneRun',
      'update interveneRun',
      'update interveneRun',
      'signal intervene',
      'update setBudgetRun',
      'update resumeRun',
    ]);
    expect(historyEntries(recorded('kill')).at(-1)).toMatchObject({ kind: 'run_completed', detail: 'terminated' });
  });

  it('lists the calls of local tools, which their markers record once they have ended', () => {
    // Retired from the corpus (test/histories/RETIRED), read from git.
    const json = retiredHistories('0.11.0')?.find((h) => h.name === '0.11.0/local-tools.json')?.json;
    if (json === undefined) return console.warn('not a git checkout: 0.11.0/local-tools.json is not read');
    const events = historyFromJSON(json).events ?? [];
    expect(historyEntries(events).map((e) => `${e.kind} ${e.detail}`)).toEqual([
      'run_started agent=faulty messages=1',
      'tool_call quick (local, turn 0: quick)',
      'tool_done quick',
      'tool_call quick (local, turn 0: quick)',
      'tool_done quick',
      'tool_call quick (local, turn 1: quick)',
      'tool_done quick',
      'run_completed completed: local done',
    ]);
    // Turns 0 and 1 are named by their calls; the final turn began in the same task and names none.
    expect(historySummary(events)).toMatchObject({ turns: 2, toolCalls: 3, modelCalls: 0 });
  });

  it('counts turns and calls and carries the result', () => {
    expect(historySummary(recorded('basic'))).toMatchObject({ turns: 3, toolCalls: 2, modelCalls: 0, result: { status: 'completed', final: { text: 'basic done' } } });
  });

  it('formats one entry per line with its event id', () => {
    const [first] = historyEntries(recorded('basic'));
    expect(first && formatHistoryEntry(first)).toMatch(/^h1 {4}\d{4}-\d\d-\d\dT[\d:.]+Z {2}run_started {5}agent=scripted messages=1$/);
  });
});
