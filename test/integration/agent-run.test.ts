import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import { InterceptingCall } from '@grpc/grpc-js';
import { ApplicationFailure } from '@temporalio/common';
import { AgentClient } from '../../client/agent-client';
import type { RunEvent, RunInput, RunResult } from '../../contracts';
import { callStep, finalStep, mostInFlight, observations, outcomesOf, scriptedInput, sleepCall, stepCall } from '../support/scripts';
import { agentSuite } from '../support/agent-suite';
import { eventSummary } from '../support/histories';
import { waitFor } from '../support/wait';
import { agentClient, createTestWorker, uniqueTaskQueue } from '../support/test-env';
import { allToolImplementations } from '../support/tools';

const suite = agentSuite('agent-run');

async function runToEnd(input: Parameters<AgentClient['start']>[0]): Promise<{ result: RunResult; events: RunEvent[]; workflowId: string }> {
  const { workflowId } = await suite.agents.start(input);
  const result = await suite.agents.result(workflowId);
  const events = (await suite.agents.events(workflowId, 0, 1000)).events;
  return { result, events, workflowId };
}


/**
 * Runs `input` to its end on a worker of its own that caches no run, so every workflow task
 * replays the run from its start: what earlier tasks saw live is read back from history, and a
 * task that decides differently fails with a nondeterminism error.
 */
async function runUncached(input: RunInput): Promise<RunResult> {
  const taskQueue = uniqueTaskQueue('no-cache');
  const worker = await createTestWorker(suite.env, taskQueue, allToolImplementations(), {}, { maxCachedWorkflows: 0 });
  const agents = agentClient(suite.env, taskQueue);
  return worker.runUntil(async () => agents.result((await agents.start(input)).workflowId));
}

async function scheduledActivityTypes(workflowId: string): Promise<string[]> {
  const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
    .filter((n): n is string => typeof n === 'string');
}

describe('agentRun on a real dev server', () => {
  it('runs a multi-turn script to its final answer with a seq-numbered event log', async () => {
    const { result, events } = await runToEnd(
      scriptedInput([callStep({ name: 'echo', args: { text: 'hi' } }), callStep({ name: 'add', args: { a: 2, b: 3 } }), finalStep('all done')]),
    );
    expect(result.status).toBe('completed');
    expect(result.final?.text).toBe('all done');
    expect(result.iterations).toBe(2);
    expect(observations(result).map((o) => o.result)).toEqual([{ text: 'hi' }, { sum: 5 }]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]?.type).toBe('run_started');
    expect(events.at(-1)).toMatchObject({ type: 'status_changed', to: 'completed' });
    expect(result.lastEventSeq).toBe(events.length);
  });

  it('runs the calls of one plan in parallel', async () => {
    const { events } = await runToEnd(
      scriptedInput([callStep({ name: 'sleep', args: { ms: 500 } }, { name: 'sleep', args: { ms: 500 } }, { name: 'echo', args: { text: 'x' } }), finalStep()]),
    );
    const kinds = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result').map((e) => e.type);
    // All three calls are dispatched before any result is recorded.
    expect(kinds).toEqual(['tool_call', 'tool_call', 'tool_call', 'tool_result', 'tool_result', 'tool_result']);
  });

  it('answers every call of a parallel plan in call order, however each one ends', async () => {
    // Closed at once (invalid arguments, unknown tool), dispatched (ok, failed, slow), all in one
    // turn: each kind ends in its own step, and the turn goes on once the last one has.
    const { result, events, workflowId } = await runToEnd(
      scriptedInput([
        callStep(
          { name: 'sleep', args: { ms: 300 }, id: 'slow' },
          { name: 'add', args: { a: 1 }, id: 'invalid' },
          { name: 'echo', args: { text: 'x' }, id: 'ok' },
          { name: 'teleport', args: {}, id: 'unknown' },
          { name: 'fail', args: { message: 'no', retryable: false }, id: 'failed' },
        ),
        callStep({ name: 'echo', args: { text: 'after' }, id: 'next' }),
        finalStep(),
      ]),
    );
    expect(result.status).toBe('completed');
    expect(outcomesOf(result)).toEqual([
      ['slow', 'ok'],
      ['invalid', 'invalid_arguments'],
      ['ok', 'ok'],
      ['unknown', 'tool_unknown'],
      ['failed', 'tool_failed'],
      ['next', 'ok'],
    ]);
    // The second turn starts only after every call of the first has ended.
    const seqOf = (type: string, id: string): number => events.find((e) => e.type === type && (e as { toolCallId?: string }).toolCallId === id)?.seq ?? -1;
    for (const id of ['slow', 'ok', 'failed']) expect(seqOf('tool_result', id)).toBeLessThan(seqOf('tool_call', 'next'));
    expect(await scheduledActivityTypes(workflowId)).toEqual(['scripted/sleep', 'scripted/echo', 'scripted/fail', 'scripted/echo']);
  });

  it('keeps at most maxConcurrentToolCalls of a parallel plan in flight; the calls that waited for a slot end the turn too', async () => {
    const { result, events } = await runToEnd(
      scriptedInput([callStep(...[...'abcde'].map((id) => sleepCall(id, 200))), callStep({ name: 'echo', args: { text: 'after' }, id: 'next' }), finalStep()], {
        policy: { maxConcurrentToolCalls: 2 },
      }),
    );
    expect(mostInFlight(events)).toBe(2);
    expect(observations(result).map((o) => [o.toolCallId, o.status])).toEqual([...'abcde'].map((id) => [id, 'ok']).concat([['next', 'ok']]));
  });

  it('a parallel turn replays at every step: a worker that caches no run ends it alike', async () => {
    // The calls that ended in earlier tasks are read back from history, and the turn must join
    // them exactly as the task that saw them live did.
    const result = await runUncached(
      scriptedInput([
        callStep(sleepCall('s300', 300), { name: 'add', args: { a: 1 }, id: 'invalid' }, sleepCall('s0', 0), sleepCall('s150', 150), { name: 'echo', args: { text: 'x' }, id: 'ok' }),
        callStep(sleepCall('t100', 100), sleepCall('t0', 0)),
        finalStep(),
      ]),
    );
    expect(result.status).toBe('completed');
    expect(outcomesOf(result)).toEqual([
      ['s300', 'ok'],
      ['invalid', 'invalid_arguments'],
      ['s0', 'ok'],
      ['s150', 'ok'],
      ['ok', 'ok'],
      ['t100', 'ok'],
      ['t0', 'ok'],
    ]);
  });

  it('a dependency-aware turn replays at every step too: dependencies, a failed one and alternatives', async () => {
    const step = stepCall;
    const result = await runUncached(
      scriptedInput([
        {
          type: 'tool_calls',
          calls: [
            step('a', 0),
            step('b', 150, { dependsOn: ['a'] }),
            step('c', 50, { dependsOn: ['a'] }),
            step('d', 0, { dependsOn: ['b', 'c'] }),
            step('bad', 0, { fail: true }),
            step('after-bad', 0, { dependsOn: ['bad'] }),
            step('fast', 100, { outputPath: 'pick' }),
            step('slow', 5_000, { outputPath: 'pick' }),
          ],
        },
        finalStep(),
      ]),
    );
    expect(result.status).toBe('completed');
    expect(Object.fromEntries(outcomesOf(result))).toEqual({
      a: 'ok',
      b: 'ok',
      c: 'ok',
      d: 'ok',
      bad: 'tool_failed',
      'after-bad': 'dependency_failed',
      fast: 'ok',
      slow: 'cancelled',
    });
  });

  it('runs the calls one after another when the policy says so', async () => {
    const { events } = await runToEnd(
      scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }, { name: 'echo', args: { text: 'b' } }), finalStep()], {
        policy: { parallelToolCalls: false },
      }),
    );
    const kinds = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result').map((e) => e.type);
    expect(kinds).toEqual(['tool_call', 'tool_result', 'tool_call', 'tool_result']);
  });

  it('shows a tool failure to the planner as an error output, and the run goes on', async () => {
    const { result } = await runToEnd(
      scriptedInput([callStep({ name: 'fail', args: { message: 'disk full' } }), callStep({ name: 'echo', args: { text: 'after' } }), finalStep()]),
    );
    const [failed, after] = observations(result);
    expect(failed).toMatchObject({ status: 'error', errorType: 'tool_failed', errorMessage: 'disk full' });
    expect(after).toMatchObject({ status: 'ok', result: { text: 'after' } });
    expect(result.status).toBe('completed');
  });

  it('respects non-retryable tool errors: the failing call runs once', async () => {
    const { workflowId } = await runToEnd(scriptedInput([callStep({ name: 'fail', args: { message: 'no', retryable: false } }), finalStep()]));
    const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    const failedEvent = history.events?.find((e) => e.activityTaskFailedEventAttributes);
    const started = history.events?.find((e) => e.activityTaskStartedEventAttributes);
    expect(failedEvent).toBeDefined();
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(1);
  });

  it('retries transient tool errors by the retry policy', async () => {
    const { result } = await runToEnd(scriptedInput([callStep({ name: 'flaky', args: { failAttempts: 2 } }), finalStep()]));
    expect(observations(result)[0]).toMatchObject({ status: 'ok', result: { succeededOnAttempt: 3 } });
  });

  it('refuses invalid arguments with a retry hint and runs no activity', async () => {
    const { result, workflowId } = await runToEnd(
      scriptedInput([callStep({ name: 'add', args: { a: 1 } }, { name: 'add', args: { a: 'one', b: 2 } }), finalStep()]),
    );
    const [missing, wrongType] = observations(result);
    expect(missing).toMatchObject({ status: 'error', errorType: 'invalid_arguments', retryReason: 'missing_fields' });
    expect(wrongType).toMatchObject({ status: 'error', errorType: 'invalid_arguments', retryReason: 'invalid_arguments' });
    expect(await scheduledActivityTypes(workflowId)).toEqual([]);
  });

  it('answers an unknown tool with tool_unavailable and runs no activity', async () => {
    const { result, workflowId } = await runToEnd(scriptedInput([callStep({ name: 'teleport', args: {} }), finalStep()]));
    expect(observations(result)[0]).toMatchObject({ status: 'error', errorType: 'tool_unknown', retryReason: 'tool_unavailable' });
    expect(observations(result)[0]?.errorMessage).toContain('available tools: echo');
    expect(await scheduledActivityTypes(workflowId)).toEqual([]);
  });

  it('types each activity <agent>/<tool> and names it after its turn', async () => {
    const { workflowId } = await runToEnd(scriptedInput([callStep({ name: 'echo', args: { text: 'a' }, id: 'c1' }), callStep({ name: 'add', args: { a: 1, b: 1 } }), finalStep()]));
    const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : []));
    expect(scheduled.map((a) => [a.activityType?.name, a.activityId])).toEqual([
      ['scripted/echo', 'turn-0/c1'],
      ['scripted/add', 'turn-1/call_1_0'],
    ]);
    // Id and type say it all: no summary payload to encode and store per call.
    expect((history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).map(eventSummary)).toEqual([undefined, undefined]);
  });

  it('omits a result larger than the byte budget and tells the planner', async () => {
    const { result } = await runToEnd(scriptedInput([callStep({ name: 'blob', args: { bytes: 5_000 } }), finalStep()], { policy: { toolResultByteBudget: 1_000 } }));
    expect(observations(result)[0]).toMatchObject({ status: 'ok', resultOmitted: true });
    expect(observations(result)[0]?.resultBytes).toBeGreaterThan(5_000);
  });

  describe('caps end the run through exactly one Finalize turn', () => {
    it('iteration_cap', async () => {
      const echo = callStep({ name: 'echo', args: { text: 'x' } });
      const { result, events } = await runToEnd(scriptedInput([echo, echo, echo, finalStep()], { policy: { maxIterations: 2 } }));
      expect(result.finalizeReason).toBe('iteration_cap');
      expect(result.final?.text).toMatch(/^Stopped early \(iteration_cap\)/);
      expect(result.iterations).toBe(2);
      expect(events.filter((e) => e.type === 'finalize_requested')).toHaveLength(1);
    });

    it('tool_cap: calls beyond the cap are closed without running', async () => {
      const echo = { name: 'echo', args: { text: 'x' } };
      const { result, workflowId } = await runToEnd(scriptedInput([callStep(echo, echo, echo, echo, echo), finalStep()], { policy: { maxToolCalls: 3 } }));
      expect(result.finalizeReason).toBe('tool_cap');
      expect(observations(result).map((o) => o.errorType ?? o.status)).toEqual(['ok', 'ok', 'ok', 'tool_cap', 'tool_cap']);
      expect(await scheduledActivityTypes(workflowId)).toHaveLength(3);
      expect(result.cost.toolCalls).toMatchObject({ used: 3, max: 3, remaining: 0 });
    });

    it('failure_cap', async () => {
      const fail = callStep({ name: 'fail', args: { message: 'boom' } });
      const { result } = await runToEnd(scriptedInput([fail, fail, fail, finalStep()], { policy: { maxConsecutiveFailures: 2 } }));
      expect(result.finalizeReason).toBe('failure_cap');
      expect(result.iterations).toBe(2);
    });

    it('time_budget: a call still running is cancelled and recorded', async () => {
      const { result, events } = await runToEnd(
        scriptedInput([callStep({ name: 'sleep', args: { ms: 30_000 } }), finalStep()], { policy: { timeBudgetMs: 1_500 } }),
      );
      expect(result.finalizeReason).toBe('time_budget');
      expect(observations(result)[0]).toMatchObject({ status: 'cancelled', errorType: 'cancelled', retryReason: 'timeout' });
      expect(events.filter((e) => e.type === 'finalize_requested')).toHaveLength(1);
      expect(result.cost.elapsedMs).toBeLessThan(30_000);
    });

    it('a planner that ignores the Finalize turn still ends', async () => {
      // The scripted planner honours finalize; this one keeps a final step that never comes.
      const echo = callStep({ name: 'echo', args: { text: 'x' } });
      const { result } = await runToEnd(scriptedInput([echo, echo], { policy: { maxIterations: 1 } }));
      expect(result.status).toBe('completed');
      expect(result.finalizeReason).toBe('iteration_cap');
    });
  });

  describe('bad input never corrupts a run', () => {
    it('the client rejects invalid run input before starting, naming the field', async () => {
      await expect(suite.agents.start({ agent: 'scripted', messages: [] })).rejects.toThrow(/messages: a run needs at least one message/);
    });

    it('a workflow started with invalid input fails with invalid_input', async () => {
      const handle = await suite.env.client.workflow.start('agentRun', {
        taskQueue: suite.agents.taskQueue,
        workflowId: `bad-${Date.now()}`,
        args: [{ agent: 'scripted', messages: 'hello' }],
      });
      const err = await handle.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe('invalid_input');
      expect((cause as ApplicationFailure).message).toContain('messages');
    });

    it('an unknown agent fails with unknown_agent and lists the registered ones', async () => {
      const { workflowId } = await suite.agents.start({ agent: 'nope', messages: [{ role: 'user', content: 'hi' }] });
      const err = await suite.agents.result(workflowId).catch((e: unknown) => e);
      const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('unknown_agent');
      expect(cause.message).toContain('scripted');
    });

    it('a script that runs out fails the run loudly with planner_failed', async () => {
      const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'x' } })]));
      const err = await suite.agents.result(workflowId).catch((e: unknown) => e);
      const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('planner_failed');
      expect(cause.message).toContain('ran out of steps');
      const page = await suite.agents.events(workflowId);
      expect(page.status).toBe('failed');
      expect(page.events.at(-2)).toMatchObject({ type: 'run_failed', errorType: 'planner_failed' });
    });
  });

  it('the watchlist demo agent changes session state (after confirmation) and quotes the list', async () => {
    const { workflowId } = await suite.agents.start({
      agent: 'watchlist',
      messages: [{ role: 'user', content: 'Add AAPL and MSFT to my watchlist' }],
      sessionState: { watchlist: ['TSLA'] },
    });
    const pending = await waitFor('the approval request', async () => {
      const inputs = await suite.agents.pendingInputs(workflowId);
      return inputs.approvals[0];
    });
    expect(pending).toMatchObject({ name: 'add_to_watchlist', args: { symbols: ['AAPL', 'MSFT'] } });
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: pending.toolCallId });
    const result = await suite.agents.result(workflowId);
    expect(result.sessionState).toEqual({ watchlist: ['TSLA', 'AAPL', 'MSFT'] });
    expect(result.final?.text).toMatch(/Your watchlist: TSLA, AAPL, MSFT\. Latest prices: TSLA [\d.]+; AAPL [\d.]+; MSFT [\d.]+\./);
    expect(result.cost.toolCalls.used).toBe(4);
  });

  it('status and events queries answer while the run is in flight', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'sleep', args: { ms: 1_500 } }), finalStep()]));
    let status = await suite.agents.status(workflowId);
    for (let i = 0; i < 50 && status.pendingCalls.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = await suite.agents.status(workflowId);
    }
    expect(status).toMatchObject({ status: 'running', agent: 'scripted', pendingCalls: [{ name: 'sleep', toolCallId: 'call_0_0' }] });
    const seen: RunEvent[] = [];
    for await (const e of suite.agents.follow(workflowId, { afterSeq: 2 })) seen.push(e);
    expect(seen[0]?.seq).toBe(3);
    expect(seen.at(-1)).toMatchObject({ type: 'status_changed', to: 'completed' });
  });

  it('refuses a start under the id of a closed run unless told to reuse it; a running one stays already started', async () => {
    const workflowId = `reuse-${Math.random().toString(36).slice(2, 10)}`;
    const first = await suite.agents.start(scriptedInput([finalStep('first')]), { workflowId });
    await suite.agents.result(workflowId);
    await expect(suite.agents.start(scriptedInput([finalStep('second')]), { workflowId })).rejects.toMatchObject({
      type: 'already_exists',
      workflowId,
      runId: first.runId,
      status: 'completed',
    });
    expect((await suite.agents.result(workflowId)).final?.text).toBe('first');

    const second = await suite.agents.start(scriptedInput([callStep({ name: 'sleep', args: { ms: 60_000 } }), finalStep('second')]), { workflowId, reuseClosedId: true });
    expect(second.runId).not.toBe(first.runId);
    await expect(suite.agents.start(scriptedInput([finalStep('third')]), { workflowId, reuseClosedId: true })).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
    await suite.agents.kill(workflowId);
    expect((await suite.agents.result(workflowId, first.runId)).final?.text).toBe('first');
  });

  it('refuses a workflow id with a lone surrogate as invalid input, naming it', async () => {
    await expect(suite.agents.start(scriptedInput([finalStep()]), { workflowId: 'lone-\ud800' })).rejects.toMatchObject({
      type: 'invalid_input',
      message: 'invalid workflowId "lone-\ufffd": it must be well-formed Unicode text (it has a lone surrogate)',
    });
  });

  it('reports run_not_found for an unknown run id', async () => {
    await expect(suite.agents.status('no-such-run')).rejects.toMatchObject({ type: 'run_not_found' });
  });
});

describe('local tools', () => {
  it('a tool defined local runs as a local activity: same output and events, no task-queue round trip', async () => {
    const { workflowId } = await suite.agents.start({
      ...scriptedInput([callStep({ name: 'quick', args: { text: 'abc' } }, { name: 'quick', args: { text: 'xy' } }), finalStep()]),
      agent: 'faulty',
    });
    const result = await suite.agents.result(workflowId);
    expect(observations(result).map((o) => [o.status, (o.result as { reversed: string }).reversed])).toEqual([
      ['ok', 'cba'],
      ['ok', 'yx'],
    ]);
    expect((observations(result)[0]?.result as { key: string }).key).toMatch(new RegExp(`^${workflowId}/.+/call_0_0$`));
    const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
    const markers = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    // A local activity has no id of ours: its summary names the call.
    expect(markers.map(eventSummary)).toEqual(['turn 0: quick', 'turn 0: quick']);
    const log = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(log.filter((e) => e.type === 'tool_result').map((e) => (e as { status: string }).status)).toEqual(['ok', 'ok']);
  });
});

describe('the commands of a new run (1.0.0 baseline)', () => {
  /** The ids of the run's patch markers, in history order. */
  function patchIds(events: readonly { markerRecordedEventAttributes?: { markerName?: string | null; details?: Record<string, { payloads?: { data?: Uint8Array | null }[] | null }> | null } | null }[]): string[] {
    return events
      .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
      .flatMap((e) => Object.values(e.markerRecordedEventAttributes?.details ?? {}))
      .flatMap((p) => p.payloads ?? [])
      .map((p) => JSON.parse(Buffer.from(p.data ?? new Uint8Array()).toString()) as unknown)
      .filter((v): v is { id: string } => typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string')
      .map((v) => v.id);
  }

  it('records one baseline marker for every patch it takes, arms one budget timer and leaves it to close with the run', async () => {
    // Parallel calls, two tool turns: the run meets the namespaced activity types, the turn
    // boundaries by activity id, both one-step settlings, the join of parallel calls and the
    // cancellation type of tools.
    const { workflowId, result } = await runToEnd(
      scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }, { name: 'add', args: { a: 1, b: 2 } }), callStep({ name: 'echo', args: { text: 'b' } }), finalStep('done')]),
    );
    expect(result.status).toBe('completed');
    const events = (await suite.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    expect(patchIds(events)).toEqual(['baseline-1.0.0']);
    // The baseline is the first command of the run's first task.
    const firstCommandEvent = events.find((e) => Number(e.eventId) > 4);
    expect(firstCommandEvent?.markerRecordedEventAttributes?.markerName).toBe('core_patch');
    // The patches it stands for are in effect: namespaced tool activities with turn ids.
    expect(await scheduledActivityTypes(workflowId)).toEqual(['scripted/echo', 'scripted/add', 'scripted/echo']);
    expect(events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityId ?? [])).toEqual(['turn-0/call_0_0', 'turn-0/call_0_1', 'turn-1/call_1_0']);
    expect(events.filter((e) => e.timerStartedEventAttributes)).toHaveLength(1);
    expect(events.filter((e) => e.timerCanceledEventAttributes)).toHaveLength(0);
    // Rewind still finds every turn's boundary from the activity ids.
    expect((await suite.agents.checkpoints(workflowId)).map((c) => c.turn)).toEqual([0, 1, 2]);
  });
});

describe('starting runs', () => {
  it("a client starting run after run asks the server about its queue's workers once, not at every start", async () => {
    // Every call of a connection of its own, by gRPC method.
    const methods: string[] = [];
    const connection = await Connection.connect({
      address: suite.env.connection.options.address,
      interceptors: [
        (options, nextCall) => {
          methods.push(options.method_definition.path);
          return new InterceptingCall(nextCall(options));
        },
      ],
    });
    try {
      const agents = new AgentClient(new Client({ connection, namespace: suite.env.namespace ?? 'default' }), suite.taskQueue);
      for (const text of ['one', 'two', 'three']) {
        const { workflowId } = await agents.start(scriptedInput([finalStep(text)]));
        expect((await agents.result(workflowId)).final?.text).toBe(text);
      }
      expect(methods.filter((m) => m.endsWith('/StartWorkflowExecution'))).toHaveLength(3);
      expect(methods.filter((m) => m.endsWith('/DescribeTaskQueue'))).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });
});
