import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { JsonValue, RunEvent, RunResult, RunStatusReport } from '../../contracts';
import { runOperationMessages, type RunOperationName } from '../../contracts/operations';
import { callStep, finalStep, scriptedInput, type Observation } from '../support/scripts';
import { agentSuite } from '../support/agent-suite';
import { waitFor } from '../support/wait';
import { stoppedLingerCalls } from '../support/tools';

const run = promisify(execFile);

const suite = agentSuite('control');

const sleep = (ms: number) => ({ name: 'sleep', args: { ms } });
const echo = (text: string) => ({ name: 'echo', args: { text } });

async function events(workflowId: string): Promise<RunEvent[]> {
  return (await suite.agents.events(workflowId, 0, 1000)).events;
}

async function eventOf<T extends RunEvent['type']>(workflowId: string, type: T, match: (e: Extract<RunEvent, { type: T }>) => boolean = () => true) {
  return waitFor(`a ${type} event`, async () => (await events(workflowId)).find((e): e is Extract<RunEvent, { type: T }> => e.type === type && match(e as Extract<RunEvent, { type: T }>)));
}

async function statusIs(workflowId: string, status: RunStatusReport['status']): Promise<RunStatusReport> {
  return waitFor(`status ${status}`, async () => {
    const report = await suite.agents.status(workflowId);
    return report.status === status ? report : undefined;
  });
}

function view(result: RunResult): { instructions: string | null; messages: { role: string; content?: string }[]; outputs: Observation[] } {
  return result.final?.structured as unknown as ReturnType<typeof view>;
}

/** The official `temporal` CLI against the suite's server, as an outside client. */
async function temporalCli(...args: string[]): Promise<string> {
  const cli = process.env.TEMPORAL_CLI_PATH;
  if (!cli) throw new Error('TEMPORAL_CLI_PATH is not set (global setup provisions it)');
  const { stdout } = await run(cli, [...args, '--address', suite.env.address, '--namespace', suite.env.namespace ?? 'default']);
  return stdout;
}

async function historyEventTypes(workflowId: string): Promise<string[]> {
  const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? '');
}

describe('pause and resume', () => {
  it('a pause during parallel tool calls waits for the safe point, and resume continues where it stopped', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(sleep(1_500), sleep(1_500)), callStep(echo('next')), finalStep()]));
    await eventOf(workflowId, 'tool_call', (e) => e.toolCallId === 'call_0_1');
    const pausing = suite.agents.pause(workflowId, { reason: 'inspect' });
    const during = await statusIs(workflowId, 'pausing');
    expect(during.pendingCalls.map((c) => c.name)).toEqual(['sleep', 'sleep']);

    const paused = await pausing;
    expect(paused).toMatchObject({ status: 'paused', point: 'after_tool', turn: 0 });
    expect(paused.historyLength).toBeGreaterThan(0);
    const atPause = await events(workflowId);
    const pausedEvent = atPause.findIndex((e) => e.type === 'paused');
    // Both tools finished before the pause took effect: nothing was torn in half.
    expect(atPause.slice(0, pausedEvent).filter((e) => e.type === 'tool_result')).toHaveLength(2);

    expect(atPause.filter((e) => e.type === 'tool_call')).toHaveLength(2);

    const resumed = await suite.agents.resume(workflowId, 'looks fine');
    expect(resumed.status).toBe('running');
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');
    // Nothing started while paused: the next turn's call comes after the resume.
    const all = await events(workflowId);
    const resumedAt = all.findIndex((e) => e.type === 'resumed');
    expect(resumedAt).toBeGreaterThan(all.findIndex((e) => e.type === 'paused'));
    expect(all.slice(0, resumedAt).filter((e) => e.type === 'tool_call')).toHaveLength(2);
    expect((result.final?.structured as unknown as Observation[]).map((o) => o.name)).toEqual(['sleep', 'sleep', 'echo']);
    const types = await historyEventTypes(workflowId);
    expect(types.filter((t) => t === 'activityTaskScheduledEventAttributes')).toHaveLength(3);
  });

  it('time spent paused does not count against the time budget', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep(echo('a')), callStep(echo('b')), finalStep()], {
        policy: { timeBudgetMs: 2_500 },
        breakpoints: [{ point: 'task_boundary', once: true }],
      }),
    );
    await statusIs(workflowId, 'paused');
    await new Promise((r) => setTimeout(r, 3_000));
    await suite.agents.resume(workflowId);
    const result = await suite.agents.result(workflowId);
    expect(result.finalizeReason).toBeUndefined();
    expect(result.cost.timeMs.used).toBeLessThan(2_500);
  });

  it('a breakpoint for one tool pauses before that tool only', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep(sleep(1_500)), callStep(echo('target')), finalStep()], { policy: { parallelToolCalls: false } }),
    );
    await suite.agents.intervene(workflowId, { kind: 'set_breakpoint', point: 'before_tool', tool: 'echo' });
    const status = await statusIs(workflowId, 'paused');
    expect(status.pausedAt).toEqual({ point: 'before_tool', turn: 1 });
    expect(status.pendingCalls).toEqual([{ toolCallId: 'call_1_0', name: 'echo', dispatched: false }]);
    await suite.agents.intervene(workflowId, { kind: 'clear_breakpoint', point: 'before_tool', tool: 'echo' });
    await suite.agents.resume(workflowId);
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
  });
});

describe('interventions change what the planner sees', () => {
  it('inject, system prompt override, edit, drop and block, applied at their safe points', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep(echo('original'), echo('to drop'), { name: 'add', args: { a: 1, b: 2 } }), { type: 'final', text: 'done', reportContext: true }], {
        breakpoints: [{ point: 'after_llm', once: true }],
      }),
    );
    const status = await statusIs(workflowId, 'paused');
    expect(status.pausedAt).toEqual({ point: 'after_llm', turn: 0 });
    expect(status.pendingCalls.every((c) => !c.dispatched)).toBe(true);

    expect(await suite.agents.intervene(workflowId, { kind: 'inject_message', role: 'user', content: 'also mention the weather' })).toMatchObject({ state: 'queued' });
    await suite.agents.intervene(workflowId, { kind: 'override_system_prompt', content: 'You are terse.' });
    await suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'call_0_0', args: { text: 'edited' } });
    await suite.agents.intervene(workflowId, { kind: 'drop_call', toolCallId: 'call_0_1', reason: 'not needed' });
    expect(await suite.agents.intervene(workflowId, { kind: 'block_tool', name: 'add', reason: 'maintenance' })).toMatchObject({ state: 'applied' });
    await suite.agents.resume(workflowId);

    const result = await suite.agents.result(workflowId);
    const seen = view(result);
    expect(seen.instructions).toBe('You are terse.');
    expect(seen.messages.at(-1)).toEqual({ role: 'user', content: 'also mention the weather' });
    expect(seen.outputs).toEqual([
      expect.objectContaining({ toolCallId: 'call_0_0', status: 'ok', result: { text: 'edited' } }),
      expect.objectContaining({ toolCallId: 'call_0_1', status: 'error', errorType: 'rejected', errorMessage: 'dropped by operator: not needed' }),
      expect.objectContaining({ toolCallId: 'call_0_2', status: 'error', errorType: 'rejected', retryReason: 'tool_unavailable' }),
    ]);
    const applied = (await events(workflowId)).filter((e) => e.type === 'intervention_applied').map((e) => e.kind);
    expect(applied).toEqual(expect.arrayContaining(['inject_message', 'override_system_prompt', 'edit_call', 'drop_call', 'block_tool']));
    // Every call the assistant opened is closed by a tool message.
    const toolMessages = seen.messages.filter((m) => m.role === 'tool');
    expect(toolMessages).toHaveLength(3);
  });

  it('agent hooks block, edit and rewrite deterministically', async () => {
    const { workflowId } = await suite.agents.start({
      ...scriptedInput([callStep({ name: 'add', args: { a: -1, b: 2 } }, echo('secret')), { type: 'final', text: 'the password is hunter2' }]),
      agent: 'guarded',
    });
    const result = await suite.agents.result(workflowId);
    expect(result.final?.text).toBe('The answer was withheld: it contained a password.');
    const results = (await events(workflowId)).filter((e): e is Extract<RunEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    expect(results[0]).toMatchObject({ name: 'add', status: 'error', error: { type: 'rejected', message: 'blocked by agent hook: negative numbers are not allowed' } });
    expect(results[1]).toMatchObject({ name: 'echo', status: 'ok' });
    const calls = (await events(workflowId)).filter((e) => e.type === 'tool_call');
    expect(calls).toEqual([expect.objectContaining({ name: 'echo', args: { text: '[redacted]' } })]);
  });
});

describe('budgets', () => {
  it('a budget lowered while running ends the run through Finalize', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(sleep(1_500)), callStep(echo('never')), finalStep()]));
    await eventOf(workflowId, 'tool_call');
    const cost = await suite.agents.setBudget(workflowId, { maxToolCalls: 1 });
    expect(cost.toolCalls.max).toBe(1);
    const result = await suite.agents.result(workflowId);
    expect(result.finalizeReason).toBe('tool_cap');
    expect(result.cost.toolCalls).toMatchObject({ used: 1, max: 1 });
    expect((await events(workflowId)).some((e) => e.type === 'budget_changed')).toBe(true);
  });

  it('raising a budget lets a run go past its original cap', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep(sleep(1_500)), callStep(echo('b')), callStep(echo('c')), finalStep()], { policy: { maxIterations: 1 } }),
    );
    await eventOf(workflowId, 'tool_call');
    await suite.agents.setBudget(workflowId, { maxIterations: 10 });
    const result = await suite.agents.result(workflowId);
    expect(result.finalizeReason).toBeUndefined();
    expect(result.iterations).toBe(3);
  });
});

describe('kill', () => {
  it('kill cancels a long heartbeating tool and ends terminated with a consistent transcript', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep(echo('first')), callStep(sleep(600_000), echo('quick')), { type: 'final', text: 'unreachable', reportContext: true }]),
    );
    await eventOf(workflowId, 'tool_call', (e) => e.name === 'sleep');
    const report = await suite.agents.kill(workflowId, { reason: 'runaway' });
    expect(report.status).toBe('terminated');
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('terminated');
    expect(result.final).toBeUndefined();
    expect(result.cost.toolCalls.used).toBeGreaterThanOrEqual(2);
    const log = await events(workflowId);
    const terminated = log.find((e): e is Extract<RunEvent, { type: 'run_terminated' }> => e.type === 'run_terminated');
    expect(terminated).toMatchObject({ reason: 'runaway', cancelledCalls: ['call_1_0'] });
    const resultsById = new Map(log.filter((e) => e.type === 'tool_result').map((e) => [(e as { toolCallId: string }).toolCallId, e]));
    expect([...resultsById.keys()].sort()).toEqual(['call_0_0', 'call_1_0', 'call_1_1']);
    expect(resultsById.get('call_1_0')).toMatchObject({ status: 'cancelled' });
    const types = await historyEventTypes(workflowId);
    expect(types).toContain('activityTaskCancelRequestedEventAttributes');
  });

  it('kill cancels the call in flight after 70 tool turns (the turns\' shared scope was renewed)', async () => {
    const turns = Array.from({ length: 70 }, (_, i) => callStep(echo(`t${i}`)));
    const { workflowId } = await suite.agents.start(scriptedInput([...turns, callStep(sleep(600_000)), finalStep('unreachable')], { policy: { maxIterations: 100 } }));
    await eventOf(workflowId, 'tool_call', (e) => e.name === 'sleep');
    await suite.agents.kill(workflowId, { reason: 'late kill' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('terminated');
    const log = await events(workflowId);
    expect(log.find((e) => e.type === 'run_terminated')).toMatchObject({ reason: 'late kill', cancelledCalls: ['call_70_0'] });
    expect(log.find((e) => e.type === 'tool_result' && e.toolCallId === 'call_70_0')).toMatchObject({ status: 'cancelled' });
    expect(await historyEventTypes(workflowId)).toContain('activityTaskCancelRequestedEventAttributes');
  });

  it('a killed call is answered only once its tool stopped, also a tool that never heartbeats', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'linger', args: { stopMs: 1_500 } }), finalStep()], { agent: 'faulty' }));
    await eventOf(workflowId, 'tool_call');
    await suite.agents.kill(workflowId, { reason: 'stop it' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('terminated');
    // The run ended after the tool finished stopping, never while its side effect went on.
    expect(stoppedLingerCalls.has('call_0_0')).toBe(true);
    expect((await events(workflowId)).find((e) => e.type === 'tool_result')).toMatchObject({ toolCallId: 'call_0_0', status: 'cancelled' });
  });

  it('a kill while paused closes the planned calls', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(echo('a'), echo('b')), finalStep()], { breakpoints: [{ point: 'after_llm' }] }));
    await statusIs(workflowId, 'paused');
    await suite.agents.kill(workflowId);
    const log = await events(workflowId);
    const results = log.filter((e) => e.type === 'tool_result');
    expect(results.map((e) => [(e as { toolCallId: string }).toolCallId, (e as { status: string }).status])).toEqual([
      ['call_0_0', 'cancelled'],
      ['call_0_1', 'cancelled'],
    ]);
    expect(log.filter((e) => e.type === 'tool_call')).toEqual([]);
  });
});

describe('bad input is rejected without harming the run', () => {
  it('an invalid signal becomes a signal_rejected event and the run carries on', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(sleep(1_500)), finalStep()]));
    await suite.agents.signal(workflowId, 'pause', { reason: 42 });
    await suite.agents.signal(workflowId, 'intervene', { kind: 'teleport' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');
    const rejected = (await events(workflowId)).filter((e) => e.type === 'signal_rejected');
    expect(rejected.map((e) => (e as { signal: string }).signal)).toEqual(['pause', 'intervene']);
    expect((rejected[0] as { reason: string }).reason).toContain('reason');
  });

  it("each operation's signal and update refuse the same input for the same reason (one table, one check)", async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(sleep(60_000)), finalStep()]));
    await eventOf(workflowId, 'tool_call');
    const handle = suite.env.client.workflow.getHandle(workflowId);
    // A payload each operation's schema refuses, and one the run refuses as it stands now.
    const refused: [RunOperationName, unknown][] = [
      ['pause', { timeoutMs: -5 }],
      ['resume', {}],
      ['kill', { reason: 7 }],
      ['intervene', { kind: 'teleport' }],
      ['intervene', { kind: 'edit_call', toolCallId: 'call_0_0', args: { ms: 1 } }],
      ['setBudget', { maxToolCalls: 'many' }],
      ['decide', { decision: 'approve', toolCallId: 'call_9_9' }],
      ['answer', { kind: 'clarification', itemId: 'nothing-open', answer: 'x' }],
    ];
    const updateReasons: string[] = [];
    for (const [name, payload] of refused) {
      const failure = await handle.executeUpdate(runOperationMessages[name].update.name, { args: [payload] }).then(
        () => undefined,
        (err: { cause?: Error }) => err.cause?.message,
      );
      expect(failure).toBeDefined();
      updateReasons.push(failure!);
      await suite.agents.signal(workflowId, name, payload);
    }
    const rejected = await waitFor('a signal_rejected event per refused signal', async () => {
      const found = (await events(workflowId)).filter((e): e is Extract<RunEvent, { type: 'signal_rejected' }> => e.type === 'signal_rejected');
      return found.length === refused.length ? found : undefined;
    });
    expect(rejected.map((e) => e.signal)).toEqual(refused.map(([name]) => name));
    expect(rejected.map((e) => e.reason)).toEqual(updateReasons);
    // Nothing was applied: the run still runs its call, unpaused.
    expect((await suite.agents.status(workflowId)).status).toBe('running');
    await suite.agents.kill(workflowId, { reason: 'done' });
  });

  it('invalid updates are rejected by their validators and leave no trace in history', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(sleep(1_500)), finalStep()]));
    await eventOf(workflowId, 'tool_call');
    await expect(suite.agents.pause(workflowId, { timeoutMs: -5 })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining('timeoutMs') });
    await expect(suite.agents.resume(workflowId)).rejects.toMatchObject({ type: 'rejected', message: 'the run is not paused' });
    await expect(suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'call_0_0', args: { ms: 1 } })).rejects.toMatchObject({
      message: expect.stringContaining('already running'),
    });
    await expect(suite.agents.setBudget(workflowId, {})).rejects.toMatchObject({ message: expect.stringContaining('name at least one budget') });
    await suite.agents.result(workflowId);
    const types = await historyEventTypes(workflowId);
    expect(types.filter((t) => t.startsWith('workflowExecutionUpdate'))).toEqual([]);
    await expect(suite.agents.pause(workflowId)).rejects.toMatchObject({ type: 'run_ended' });
  });

  it('an edit whose arguments do not match the tool is rejected, naming the field', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'add', args: { a: 1, b: 2 } }), finalStep()], { breakpoints: [{ point: 'after_llm', once: true }] }),
    );
    await statusIs(workflowId, 'paused');
    await expect(suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'call_0_0', args: { a: 'x', b: 2 } })).rejects.toMatchObject({
      type: 'rejected',
      message: expect.stringContaining('a: '),
    });
    await suite.agents.resume(workflowId);
    const result = await suite.agents.result(workflowId);
    expect((result.final?.structured as unknown as Observation[])[0]).toMatchObject({ result: { sum: 3 } });
  });
});

describe('the official temporal CLI drives a run', () => {
  it('pause by signal, status by query, resume by update', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(sleep(800)), callStep(echo('after')), finalStep()]));
    await eventOf(workflowId, 'tool_call');
    await temporalCli('workflow', 'signal', '--workflow-id', workflowId, '--name', 'pause', '--input', '{"reason":"from the temporal CLI"}');
    await statusIs(workflowId, 'paused');
    const queried = JSON.parse(await temporalCli('workflow', 'query', '--workflow-id', workflowId, '--name', 'status', '--output', 'json')) as {
      queryResult: [{ status: string; pauseReason: string }];
    };
    expect(queried.queryResult[0]).toMatchObject({ status: 'paused', pauseReason: 'from the temporal CLI' });
    await temporalCli('workflow', 'update', 'execute', '--workflow-id', workflowId, '--name', 'resumeRun', '--input', '{}');
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');
    const structured = result.final?.structured as JsonValue[];
    expect(structured).toHaveLength(2);
  });
});
