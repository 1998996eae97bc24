/**
 * Hostile input found by fuzzing must be refused where it enters and never harm the worker or
 * the run: a lone UTF-16 surrogate in an id (its echo made the failure unencodable, and the SDK
 * core shut down every worker that received the update), and a value nested 3000 levels deep
 * (accepted into an event, after which every events read threw).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { temporal } from '@temporalio/proto';
import { answerAwaitUpdate, decideCallUpdate, decideSignal, interveneUpdate, maxPayloadBytes } from '../../contracts';
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { testTempDir } from '../support/temp-dir';
import { waitFor } from '../support/wait';

// The worker a user runs: workflows on a thread of their own (its stack is what a deep value meets).
const suite = agentSuite('hostile', undefined, { worker: { debugMode: false } });
const dir = testTempDir('hostile-input');

/**
 * The official `temporal` CLI against the suite's server, as an outside client: it sends values
 * nested deeper than our client (or any JavaScript client) can encode, up to Go's 10,000 levels.
 */
async function temporalCli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const cli = process.env.TEMPORAL_CLI_PATH;
  if (!cli) throw new Error('TEMPORAL_CLI_PATH is not set (global setup provisions it)');
  return promisify(execFile)(cli, [...args, '--address', suite.env.address, '--namespace', suite.env.namespace ?? 'default']);
}

/** A JSON file holding `value` with `nestedText(levels)` where it says NESTED. */
function inputFile(name: string, value: unknown, levels: number): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value).replace('"NESTED"', `${'['.repeat(levels)}"bottom"${']'.repeat(levels)}`));
  return path;
}

async function workflowTaskFailures(workflowId: string): Promise<number> {
  const { events } = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
  return (events ?? []).filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED).length;
}

function nested(levels: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('hostile input to a waiting run', () => {
  it('an id with a lone surrogate and a 3000-level answer are refused; the worker and the run carry on', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }), finalStep('survived')], { confirmation: { all: true } }),
    );
    await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    const handle = suite.env.client.workflow.getHandle(workflowId);

    // Sent through the raw handle, as any client could; each update is refused by its validator.
    for (let i = 0; i < 3; i++) {
      await expect(handle.executeUpdate(decideCallUpdate, { args: [{ decision: 'approve', toolCallId: '\ud800' }] })).rejects.toMatchObject({
        cause: { message: expect.stringContaining('toolCallId: must be well-formed Unicode text (it has a lone surrogate)') },
      });
    }
    await expect(handle.executeUpdate(interveneUpdate, { args: [{ kind: 'drop_call', toolCallId: 'x\udc00y' }] })).rejects.toMatchObject({
      cause: { message: expect.stringContaining('lone surrogate') },
    });
    await expect(
      handle.executeUpdate(decideCallUpdate, { args: [{ decision: 'edit', toolCallId: 'call_0_0', args: { text: nested(3000) } }] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringContaining('nested deeper than 64 levels') } });
    await expect(
      handle.executeUpdate(answerAwaitUpdate, { args: [{ kind: 'clarification', itemId: 'c', answer: 'x', fields: { deep: nested(3000) } }] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringContaining('nested deeper than 64 levels') } });
    // A 400 KB id (under the payload limit) is refused with a bounded message.
    const huge = 'z'.repeat(400_000);
    const refused = await handle.executeUpdate(decideCallUpdate, { args: [{ decision: 'approve', toolCallId: huge }] }).then(
      () => undefined,
      (err: { cause?: Error }) => err.cause,
    );
    expect(refused?.message.length).toBeLessThan(2_100);

    // The same worker still serves the run: the approval goes through and the run completes.
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');
    expect((await suite.agents.events(workflowId, 0, 1000)).events.at(-1)).toMatchObject({ type: 'status_changed' });
  });
});

describe('oversized payloads', () => {
  it('100 oversized signals and 100 oversized updates are refused at the door; no workflow task fails, the run completes, its history holds none of them', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }), finalStep('survived')], { confirmation: { all: true } }),
    );
    await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    const handle = suite.env.client.workflow.getHandle(workflowId);
    const oversized = { decision: 'approve', toolCallId: 'x'.repeat(maxPayloadBytes + 1) } as const;

    // AgentClient refuses them before sending, naming the limit and the size.
    await expect(suite.agents.decide(workflowId, oversized)).rejects.toMatchObject({
      type: 'invalid_input',
      message: expect.stringMatching(/^the decideCall update is 5243\d\d bytes of JSON; the limit is 524288 bytes \(512 KiB\) per payload$/),
    });
    await expect(suite.agents.signal(workflowId, 'decide', oversized)).rejects.toMatchObject({ type: 'invalid_input', message: expect.stringContaining('the decide signal is') });

    // A hostile client skips that check: the server refuses every signal at the door, and no
    // workflow task fails.
    for (let i = 0; i < 100; i++) {
      await expect(handle.signal(decideSignal, oversized)).rejects.toMatchObject({ cause: { message: expect.stringContaining('Blob data size exceeds limit') } });
    }
    expect(await workflowTaskFailures(workflowId)).toBe(0);

    // Updates are refused at the door too (history.maxInFlightUpdatePayloads): they never reach
    // the worker, whose refusal would echo them, and no workflow task fails.
    const updates = await Promise.allSettled(Array.from({ length: 100 }, () => handle.executeUpdate(decideCallUpdate, { args: [oversized] })));
    for (const update of updates) {
      expect(update).toMatchObject({ status: 'rejected', reason: { cause: { message: expect.stringContaining('limit on total payload size of in-flight updates') } } });
    }
    expect(await workflowTaskFailures(workflowId)).toBe(0);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'survived' } });
    // Nothing near the size of a refused payload was recorded.
    expect((await suite.agents.exportHistory(workflowId)).length).toBeLessThan(100_000);
  });
});

describe('a run input nested too deep', () => {
  it('a run started through Temporal directly with a 3000-level session state fails with invalid_input naming the field; the worker carries on', async () => {
    const workflowId = `deep-input-${Date.now()}`;
    // As any Temporal client (or `temporal workflow start`) can: no AgentClient checks on the way.
    const handle = await suite.env.client.workflow.start('agentRun', {
      taskQueue: suite.taskQueue,
      workflowId,
      args: [{ ...scriptedInput([finalStep('deep')]), sessionState: { deep: nested(3000) } }],
    });
    await expect(suite.agents.result(handle.workflowId)).rejects.toMatchObject({
      cause: { message: expect.stringContaining('invalid run input: sessionState: nested deeper than 64 levels') },
    });
    expect(await workflowTaskFailures(workflowId)).toBe(0);
    const next = await suite.agents.start(scriptedInput([finalStep('still here')]));
    expect(await suite.agents.result(next.workflowId)).toMatchObject({ status: 'completed' });
  });
});

describe('a value nested 9,000 levels deep, from another language\'s client', () => {
  it('in a run input fails the run with invalid_input naming the field; no workflow task fails', async () => {
    const workflowId = `deep-cli-run-${Date.now()}`;
    const file = inputFile('run-input.json', { ...scriptedInput([finalStep('deep')]), sessionState: { deep: 'NESTED' } }, 9000);
    await temporalCli('workflow', 'start', '--type', 'agentRun', '--task-queue', suite.taskQueue, '--workflow-id', workflowId, '--input-file', file);
    await expect(suite.agents.result(workflowId)).rejects.toMatchObject({
      cause: { message: expect.stringContaining('invalid run input: sessionState: nested deeper than 64 levels'), type: 'invalid_input' },
    });
    expect(await workflowTaskFailures(workflowId)).toBe(0);
  });

  it('in the carried state a run input may hold (only the runtime writes it) fails the run with invalid_input; no workflow task fails', async () => {
    const workflowId = `deep-cli-carried-${Date.now()}`;
    const file = inputFile('carried-input.json', { ...scriptedInput([finalStep('deep')]), continued: { plannerState: { deep: 'NESTED' } } }, 9000);
    await temporalCli('workflow', 'start', '--type', 'agentRun', '--task-queue', suite.taskQueue, '--workflow-id', workflowId, '--input-file', file);
    await expect(suite.agents.result(workflowId)).rejects.toMatchObject({
      cause: { message: expect.stringContaining('invalid run input: continued: nested deeper than 1000 levels'), type: 'invalid_input' },
    });
    expect(await workflowTaskFailures(workflowId)).toBe(0);
  });

  it('in signals to a waiting run is refused or dropped; no workflow task fails, and the run completes', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }), finalStep('survived')], { confirmation: { all: true } }),
    );
    await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    const signals = {
      // What the model activity reports while it streams; anyone can send it.
      earlyToolCall: { turn: 0, toolCallId: 'call_x', name: 'echo', args: { text: 'NESTED' } },
      intervene: { kind: 'edit_call', toolCallId: 'call_0_0', args: { text: 'NESTED' } },
      decide: { decision: 'edit', toolCallId: 'call_0_0', args: { text: 'NESTED' } },
    };
    for (const [name, payload] of Object.entries(signals)) {
      await temporalCli('workflow', 'signal', '--name', name, '--workflow-id', workflowId, '--input-file', inputFile(`${name}.json`, payload, 9000));
    }
    // Every signal handled: the run's log shows the two it refuses (the early call it drops).
    await waitFor('the refusals', async () => ((await suite.agents.events(workflowId, 0, 1000)).events.filter((e) => e.type === 'signal_rejected').length >= 2 ? true : undefined));
    const rejected = (await suite.agents.events(workflowId, 0, 1000)).events.filter((e) => e.type === 'signal_rejected');
    expect(rejected).toEqual([
      expect.objectContaining({ signal: 'intervene', reason: expect.stringContaining('nested deeper than 64 levels') }),
      expect.objectContaining({ signal: 'decide', reason: expect.stringContaining('nested deeper than 64 levels') }),
    ]);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'survived' } });
    expect(await workflowTaskFailures(workflowId)).toBe(0);
  });

  it('in a new session\'s state fails the session with invalid_input naming the field; no workflow task fails', async () => {
    const sessionId = `deep-cli-session-${Date.now()}`;
    const file = inputFile('session-input.json', { agent: 'watchlist-scripted', sessionState: { deep: 'NESTED' } }, 9000);
    await temporalCli('workflow', 'start', '--type', 'agentSession', '--task-queue', suite.taskQueue, '--workflow-id', sessionId, '--input-file', file);
    const failure = await suite.env.client.workflow.getHandle(sessionId).result().catch((err: { cause?: { message?: string; type?: string } }) => err.cause);
    expect(failure).toMatchObject({ message: expect.stringContaining('invalid session input: sessionState: nested deeper than 64 levels'), type: 'invalid_input' });
    expect(await workflowTaskFailures(sessionId)).toBe(0);
    // What a session carries across continue-as-new (here a queued message), sent by a client.
    const carriedId = `${sessionId}-carried`;
    const queued = { agent: 'watchlist-scripted', queue: [{ runNumber: 1, workflowId: 'w', content: 'hi', plannerOptions: 'NESTED' }] };
    await temporalCli('workflow', 'start', '--type', 'agentSession', '--task-queue', suite.taskQueue, '--workflow-id', carriedId, '--input-file', inputFile('session-queue.json', queued, 9000));
    const carriedFailure = await suite.env.client.workflow.getHandle(carriedId).result().catch((err: { cause?: { message?: string; type?: string } }) => err.cause);
    expect(carriedFailure).toMatchObject({ message: expect.stringContaining('invalid session input: queue: nested deeper than 1000 levels'), type: 'invalid_input' });
    expect(await workflowTaskFailures(carriedId)).toBe(0);
  });

  it('in a message\'s planner options is refused at the door, naming the field; the session goes on', async () => {
    const sessionId = `deep-cli-message-${Date.now()}`;
    const workflowId = await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] } });
    const file = inputFile('message.json', { content: 'hello', plannerOptions: { steps: 'NESTED' } }, 9000);
    const refused = await temporalCli('workflow', 'update', 'execute', '--name', 'sendMessage', '--workflow-id', workflowId, '--input-file', file).then(
      () => 'accepted',
      (err: { stderr?: string }) => err.stderr ?? '',
    );
    expect(refused).toContain('invalid message: plannerOptions: nested deeper than 64 levels');
    const record = await suite.agents.sendMessage(sessionId, { content: 'hello', plannerOptions: scriptedInput([finalStep('still here')]).plannerOptions });
    expect(await suite.agents.result(record.workflowId)).toMatchObject({ status: 'completed', final: { text: 'still here' } });
    expect(await workflowTaskFailures(workflowId)).toBe(0);
    await suite.agents.closeSession(sessionId);
  });
});

describe('large signals in a history', () => {
  // An open flake: under CI load this case has twice run past jest's 120 s (once before runs
  // continued as new while waiting, once after), without a failed assertion or a failed workflow
  // task in the server's log. One more try, with the first attempt's error logged, until it is
  // explained; the assertions are unchanged. Each step's time is printed when an attempt fails
  // (also by jest's timeout, after which only the hooks run), to show where it stalls.
  jest.retryTimes(1, { logErrorsBeforeRetry: true });
  let steps: string[] = [];
  let began = 0;
  const step = (what: string): void => {
    steps.push(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
  };
  beforeEach(() => {
    steps = [];
    began = Date.now();
  });
  afterEach(() => {
    if (steps.at(-1)?.endsWith(': done')) return;
    process.stderr.write(`large signals: the attempt stopped after these steps:\n  ${steps.join('\n  ')}\n`);
  });
  it('ten 480 KB signals (over 4 MiB in one page) leave every execution readable: export and checkpoints page through them', async () => {
    step('start');
    const { workflowId, runId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }), finalStep('read through')], { confirmation: { all: true } }),
    );
    step(`started ${workflowId}`);
    await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    step('approval requested');
    const handle = suite.env.client.workflow.getHandle(workflowId);
    // Under the per-payload limit each, as any client may send; a name the run does not handle.
    for (let i = 0; i < 10; i++) {
      await handle.signal('note', { text: `${i}`.padEnd(480_000, 'x') });
      step(`signal ${i} sent`);
    }
    // The history's size makes the run continue as new while it waits (Temporal suggests it),
    // at a moment of its own: the execution that holds the signals is read by its run id.
    const exported = await suite.agents.exportHistory(workflowId, runId);
    step(`exported ${exported.length} characters`);
    expect(exported.length).toBeGreaterThan(4_800_000);
    expect((await suite.agents.checkpoints(workflowId, runId)).map((c) => c.turn)).toEqual([0]);
    step('checkpoints read');
    const decided = await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    step(`approved (pending after: ${JSON.stringify(decided)}; run ${(await handle.describe()).runId})`);
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'read through' } });
    step('result read');
    // Each execution stays readable.
    expect((await suite.agents.checkpoints(workflowId)).map((c) => c.turn)).toContain(1);
    expect((await suite.agents.exportHistory(workflowId, runId)).length).toBeGreaterThan(4_800_000);
    step('done');
  });
});
