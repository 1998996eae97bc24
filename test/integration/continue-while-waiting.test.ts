/**
 * A run that waits for people never reaches Temporal's per-execution limits: operators' updates
 * and signals keep coming while it waits, so it continues as new in the middle of its turn,
 * carrying the calls that ended, the approvals and the open await. The dev server here has its
 * update and signal limits lowered to 20 and 30; a 0.13.0 run refused its 21st update ("Workflow
 * Update failed") and could then never be approved.
 */
import { randomBytes } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { approvalDigest } from '../../contracts/approval-digest';
import { startAgentServer } from '../../server';
import type { RunEvent } from '../../contracts';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, observations, scriptedInput, stepCall } from '../support/scripts';
import { waitFor } from '../support/wait';
import OpenAI from 'openai';
import { createModelActivities } from '../../activities/model';
import { callTools, FakeOpenAIServer, say, toolCall } from '../../testing/fake-model';
import { findTestAgent } from '../support/agents';
import { allToolImplementations } from '../support/tools';
import { agentClient, createTestWorker, uniqueTaskQueue } from '../support/test-env';

const maxTotalUpdates = 20;
const maxSignals = 30;
const suite = agentSuite('continue-waiting', undefined, {
  serverArgs: [
    '--dynamic-config-value', `history.maxTotalUpdates=${maxTotalUpdates}`,
    '--dynamic-config-value', `history.maximumSignalsPerExecution=${maxSignals}`,
  ],
});
/** Well under the lowered limits, as the defaults are under Temporal's. */
const policy = { continueAsNewAfterUpdates: 8, continueAsNewAfterSignals: 10 };

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = { updateAccepted: 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED', signaled: 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED', scheduled: 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' };

/** Every execution of a run, first to last, with its history. */
async function executions(workflowId: string, firstRunId: string): Promise<HistoryEvent[][]> {
  const chain: HistoryEvent[][] = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const history: temporal.api.history.v1.IHistory = await suite.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events: HistoryEvent[] = history.events ?? [];
    chain.push(events);
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return chain;
}

/** How many events of a type a history holds (types as the proto enum's names). */
function count(events: readonly HistoryEvent[], type: string): number {
  return events.filter((e) => eventTypeName(e) === type).length;
}

function eventTypeName(event: HistoryEvent): string {
  const names: Record<number, string> = { 10: EventType.scheduled, 26: EventType.signaled, 47: EventType.updateAccepted };
  return names[Number(event.eventType)] ?? String(event.eventType);
}

/** The events the run's log still holds (a continued run keeps its newest ones), checked gap-free. */
async function logEvents(workflowId: string): Promise<RunEvent[]> {
  const all: RunEvent[] = [];
  let after = 0;
  for (;;) {
    const page = await suite.agents.events(workflowId, after, 500);
    all.push(...page.events);
    if (page.events.length === 0) break;
    after = page.nextAfterSeq;
  }
  const seqs = all.map((e) => e.seq);
  expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
  return all;
}

/** Operators' updates that answer at once: budget changes, `count` of them. */
async function budgetUpdates(workflowId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await suite.agents.setBudget(workflowId, { maxIterations: 25 + (i % 5) });
}

/**
 * Pause and resume by signal, `pairs` times, each seen to take effect as an operator would see
 * it. (Signals sent faster than a workflow task takes keep a run from closing its execution:
 * Temporal refuses to complete a task while signals it has not seen wait.)
 */
async function pauseResumeBySignals(workflowId: string, pairs: number): Promise<void> {
  const seen = (status: string) => waitFor(`status ${status}`, async () => ((await suite.agents.status(workflowId)).status === status ? true : undefined));
  for (let i = 0; i < pairs; i++) {
    await suite.agents.signal(workflowId, 'pause', { reason: `signal ${i}` });
    await seen('pausing');
    await suite.agents.signal(workflowId, 'resume', {});
    await seen('awaiting');
  }
}

function expectUnderLimits(chain: readonly HistoryEvent[][]): void {
  for (const events of chain) {
    expect(count(events, EventType.updateAccepted)).toBeLessThan(maxTotalUpdates);
    expect(count(events, EventType.signaled)).toBeLessThan(maxSignals);
  }
}

describe('continue-as-new while a run waits for people', () => {
  it('a turn waiting for an approval takes 30 updates, 40 signals and 100 reads, continues as new, and is still approved and completed: the call that ended runs once', async () => {
    // `a` ends at once, `b` waits for its approval, `c` waits for `b`.
    const plan = callStep(stepCall('a', 0), { name: 'echo', args: { text: 'b' }, id: 'b' }, stepCall('c', 0, { dependsOn: ['b'] }));
    const { workflowId, runId } = await suite.agents.start(scriptedInput([plan, finalStep()], { confirmation: { tools: ['echo'] }, policy }));
    await waitFor('b waits for its approval', async () => ((await suite.agents.pendingInputs(workflowId)).approvals.length === 1 ? true : undefined));

    await budgetUpdates(workflowId, 30);
    await pauseResumeBySignals(workflowId, 20);
    for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: 10 }, () => suite.agents.status(workflowId)));

    const [approval] = (await suite.agents.pendingInputs(workflowId)).approvals;
    expect(approval).toMatchObject({ toolCallId: 'b', name: 'echo', args: { text: 'b' } });
    await suite.agents.decide(workflowId, { toolCallId: 'b', decision: 'approve', by: 'alice' });
    const result = await suite.agents.result(workflowId);

    expect(result.status).toBe('completed');
    expect(observations(result).map((o) => [o.toolCallId, o.status])).toEqual([['a', 'ok'], ['b', 'ok'], ['c', 'ok']]);
    const chain = await executions(workflowId, runId);
    expect(chain.length).toBeGreaterThan(2);
    expectUnderLimits(chain);
    // Each call's activity was scheduled once, in all executions together.
    const scheduled = chain.flatMap((events) => events.filter((e) => eventTypeName(e) === EventType.scheduled));
    expect(scheduled.map((e) => e.activityTaskScheduledEventAttributes?.activityId?.replace(/^turn-\d+\//, ''))).toEqual([expect.stringContaining('a'), expect.stringContaining('b'), expect.stringContaining('c')]);
    // The executions that began in the middle of turn 0 list no turn 0 boundary: a rewind
    // there would not begin the turn. The last one has the boundary of turn 1 only.
    const last = chain.at(-1)!;
    const lastRunId = last[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId ?? '';
    expect((await suite.agents.checkpoints(workflowId, lastRunId)).map((c) => c.turn)).toEqual([1]);
    const log = await logEvents(workflowId);
    expect(log.filter((e) => e.type === 'approval_requested').map((e) => e.type === 'approval_requested' && e.toolCallId)).toEqual(['b']);
    expect(log.filter((e) => e.type === 'tool_result').map((e) => e.type === 'tool_result' && e.toolCallId)).toEqual(['a', 'b', 'c']);
    expect(log.at(-1)).toMatchObject({ type: 'status_changed', to: 'completed' });
  });

  it('an approval keeps its digest across continue-as-new: a link minted before is answered after it, and rules set while waiting are the next execution\'s', async () => {
    const args = { text: 'pay acme 500' };
    const digest = approvalDigest('echo', args);
    const steps = [callStep({ id: 'pay', name: 'echo', args }), callStep({ id: 'again', name: 'echo', args: { text: 'blocked payee' } }), finalStep('paid')];
    const { workflowId, runId } = await suite.agents.start(scriptedInput(steps, { confirmation: { tools: ['echo'] }, policy }));
    const first = await waitFor('pay waits for its approval', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    expect(first).toMatchObject({ toolCallId: 'pay', digest });
    const server = await startAgentServer({ agents: suite.agents, auth: { tokens: [], localDev: true }, approvalLinks: { keys: [{ id: 'links-cw', key: randomBytes(32) }] } });
    try {
      const minted = await fetch(`${server.url}/api/runs/${encodeURIComponent(workflowId)}/approval-links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ toolCallId: 'pay', approver: { names: ['ana'] } }),
      });
      expect(minted.status).toBe(201);
      const link = (await minted.json()) as { url: string; digest: string };
      expect(link.digest).toBe(digest);
      // Rules changed while it waits: they decide no call that waits now, and must decide the next turn's.
      const rules = { version: 'payees-2', rules: [{ id: 'blocked', effect: 'deny' as const, tools: ['echo'], args: [{ path: 'text', op: 'eq' as const, value: 'blocked payee' }], reason: 'payee is blocked' }] };
      expect((await suite.agents.setApprovalRules(workflowId, rules)).approvals.map((a) => a.toolCallId)).toEqual(['pay']);
      await budgetUpdates(workflowId, 12);
      await waitFor('the run continued as new', async () => ((await executions(workflowId, runId)).length > 1 ? true : undefined));

      // The same request in the new execution: same digest, and the link minted before is answered.
      expect((await suite.agents.pendingInputs(workflowId)).approvals).toEqual([expect.objectContaining({ toolCallId: 'pay', digest })]);
      const page = await fetch(link.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(digest);
      const answered = await fetch(link.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ action: 'approve' }).toString() });
      expect(answered.status).toBe(200);
      expect(await answered.text()).toContain('was approved by ana');
      const result = await suite.agents.result(workflowId);
      expect(result).toMatchObject({ status: 'completed', final: { text: 'paid' } });
      // The next turn's call was denied by the rules set before the run continued, with their version.
      expect(observations(result).map((o) => [o.toolCallId, o.status, o.errorMessage])).toEqual([
        ['pay', 'ok', undefined],
        ['again', 'error', 'denied by approval rule blocked (rules payees-2): payee is blocked'],
      ]);
      const log = await logEvents(workflowId);
      expect(log.filter((e) => e.type === 'approval_decided')).toEqual([
        expect.objectContaining({ toolCallId: 'pay', decision: 'approve', by: 'ana', digest }),
        expect.objectContaining({ toolCallId: 'again', decision: 'reject', rules: { version: 'payees-2', rule: 'blocked' } }),
      ]);
      expect((await executions(workflowId, runId)).length).toBeGreaterThan(1);
    } finally {
      await server.close();
    }
  });

  it('an open await keeps its answers across continue-as-new and closes with them', async () => {
    const ask: ScriptStep = {
      type: 'await',
      await: {
        items: [
          { kind: 'clarification', id: 'city', question: 'Which city?', toolCallId: 'ask_city' },
          { kind: 'clarification', id: 'day', question: 'Which day?' },
        ],
      },
    };
    const { workflowId, runId } = await suite.agents.start(scriptedInput([ask, finalStep()], { policy }));
    await waitFor('the await opens', async () => (await suite.agents.pendingInputs(workflowId)).await);
    await suite.agents.answer(workflowId, { kind: 'clarification', itemId: 'city', answer: 'Lisbon' });
    await budgetUpdates(workflowId, 25);

    const pending = await suite.agents.pendingInputs(workflowId);
    expect(pending.await?.items.map((i) => [i.id, i.answered])).toEqual([['city', true], ['day', false]]);
    await suite.agents.answer(workflowId, { kind: 'clarification', itemId: 'day', answer: 'Friday' });
    const result = await suite.agents.result(workflowId);

    expect(result.status).toBe('completed');
    expect(observations(result)).toEqual([expect.objectContaining({ toolCallId: 'ask_city', status: 'ok', result: { answer: 'Lisbon' } })]);
    const chain = await executions(workflowId, runId);
    expect(chain.length).toBeGreaterThan(1);
    expectUnderLimits(chain);
    const log = await logEvents(workflowId);
    expect(log.filter((e) => e.type === 'await_opened')).toHaveLength(1);
    expect(log.filter((e) => e.type === 'await_closed')).toEqual([expect.objectContaining({ outcome: 'answered' })]);
    expect(result.iterations).toBe(1);
  });

  it('a sub-agent run waiting for an approval continues as new on its own; the parent lists and answers it, and gets its result', async () => {
    const childSteps: ScriptStep[] = [callStep({ name: 'transfer', args: { to: 'acme', amount: 500 } }), finalStep('child done')];
    const parentSteps: ScriptStep[] = [{ type: 'tool_calls', calls: [{ id: 'pay', name: 'delegate', args: { task: 'pay acme', steps: childSteps } as never }] }, finalStep('parent done')];
    const { workflowId } = await suite.agents.start({ agent: 'delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps: parentSteps }, policy });
    const [waiting] = await waitFor('the child approval', async () => {
      const all = await suite.agents.pendingInputsTree(workflowId);
      return all.length ? all : undefined;
    });
    const childId = waiting!.workflowId;
    const childRunId = (await suite.env.client.workflow.getHandle(childId).describe()).runId;
    // The child has the default bounds (1,000 updates): Temporal's own suggestion, at 90% of the
    // lowered limit (18 updates), is what makes it continue.
    await budgetUpdates(childId, maxTotalUpdates - 2);

    const [still] = await suite.agents.pendingInputsTree(workflowId);
    expect(still).toMatchObject({ path: ['pay'], approvals: [{ toolCallId: 'call_0_0', name: 'transfer' }] });
    await suite.agents.decideInTree(workflowId, ['pay'], { decision: 'approve', toolCallId: 'call_0_0', by: 'ops' });
    const result = await suite.agents.result(workflowId);
    const [call] = observations(result);
    expect(call).toMatchObject({ toolCallId: 'pay', status: 'ok', result: { status: 'completed', text: 'child done' } });
    const chain = await executions(childId, childRunId);
    expect(chain.length).toBeGreaterThan(1);
    expectUnderLimits(chain);
  });

  it('a model-planned run continues as new while its approval waits, and the model is asked again with the whole conversation', async () => {
    const fake = await FakeOpenAIServer.start();
    // Adds AAPL (needs confirmation) unless the conversation has the tool's result.
    fake.respondWith((request) => (request.body?.messages.at(-1)?.role === 'tool' ? say('AAPL is on your watchlist') : callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] }))));
    const taskQueue = uniqueTaskQueue('continue-waiting-llm');
    const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
    const worker = await createTestWorker(suite.env, taskQueue, allToolImplementations(), createModelActivities({ openai, findAgent: findTestAgent }));
    const running = worker.run();
    try {
      const llm = agentClient(suite.env, taskQueue);
      const { workflowId, runId } = await llm.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Add AAPL' }], sessionState: { watchlist: [] }, policy });
      const [approval] = await waitFor('the approval', async () => {
        const { approvals } = await llm.pendingInputs(workflowId);
        return approvals.length ? approvals : undefined;
      });
      for (let i = 0; i < 12; i++) await llm.setBudget(workflowId, { maxIterations: 25 + (i % 5) });
      await llm.decide(workflowId, { toolCallId: approval!.toolCallId, decision: 'approve' });
      const result = await llm.result(workflowId);

      expect(result.final?.text).toBe('AAPL is on your watchlist');
      expect(result.sessionState).toEqual({ watchlist: ['AAPL'] });
      const chain = await executions(workflowId, runId);
      expect(chain.length).toBeGreaterThan(1);
      // Two model calls in all: the plan, then the answer that saw the tool's result.
      expect(fake.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(2);
      const last = fake.requests.at(-1)?.body?.messages ?? [];
      expect(last.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    } finally {
      worker.shutdown();
      await running;
      await fake.close();
    }
  });

  it.each(['after_llm', 'after_tool', 'task_boundary'] as const)('a run paused at %s continues as new while operators keep sending, holds again, and goes on when resumed: its call runs once', async (point) => {
    const { workflowId, runId } = await suite.agents.start(scriptedInput([callStep(stepCall('a', 0)), finalStep()], { policy, breakpoints: [{ point, once: true }] }));
    await waitFor(`the run holds at ${point}`, async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    await budgetUpdates(workflowId, 12);
    await waitFor('the run continued as new', async () => ((await executions(workflowId, runId)).length > 1 ? true : undefined));
    await waitFor('the run holds again', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));

    await suite.agents.resume(workflowId, 'go on');
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');
    expect(observations(result).map((o) => [o.toolCallId, o.status])).toEqual([['a', 'ok']]);
    const chain = await executions(workflowId, runId);
    expectUnderLimits(chain);
    expect(chain.flatMap((events) => events.filter((e) => eventTypeName(e) === EventType.scheduled))).toHaveLength(1);
    const log = await logEvents(workflowId);
    expect(log.filter((e) => e.type === 'tool_result')).toHaveLength(1);
  });

  it('a pause update in flight answers when the run continues while waiting; the pause is carried, and the run can be killed', async () => {
    const plan = callStep(stepCall('a', 0), { name: 'echo', args: { text: 'b' }, id: 'b' });
    const { workflowId, runId } = await suite.agents.start(scriptedInput([plan, finalStep()], { confirmation: { tools: ['echo'] }, policy }));
    await waitFor('b waits for its approval', async () => ((await suite.agents.pendingInputs(workflowId)).approvals.length === 1 ? true : undefined));
    // No safe point comes while b waits: the pause update waits (up to 10 minutes) for one.
    const pausing = suite.agents.pause(workflowId, { reason: 'hold on', timeoutMs: 600_000 }).then(
      () => 'paused',
      (err: Error) => err.message,
    );
    // The pause must be in this execution before it continues: one that reaches the server after
    // that goes to the next execution, where it waits for a safe point like any pause.
    await waitFor('the pause to be requested', async () => ((await suite.agents.status(workflowId)).status === 'pausing' ? true : undefined));
    await budgetUpdates(workflowId, 12);
    expect(await pausing).toMatch(/continues as new while it waits for people; the pause stays requested/);
    await waitFor('the run continued as new', async () => ((await executions(workflowId, runId)).length > 1 ? true : undefined));
    expect((await suite.agents.status(workflowId)).status).toBe('pausing');

    await suite.agents.kill(workflowId, { reason: 'enough' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('terminated');
    const log = await logEvents(workflowId);
    expect(log.find((e) => e.type === 'run_terminated')).toMatchObject({ cancelledCalls: ['b'] });
  });
});

/**
 * A human input that reaches a run while it still waits for it is never dropped, also when it
 * comes in the new execution's first workflow task, right after the run continued as new while
 * waiting. Before 1.0.0-rc the carried approvals and the open await were restored only when the
 * loop resumed the turn, after the handlers of that first task had run: a `decide` or `answer`
 * sent 100 to 600 ms after the continuation was rejected ("no call … waits for a decision";
 * "the run is not waiting for answers") and the run waited for ever.
 */
describe('a human input right after the run continued as new while waiting', () => {
  /** Low enough that three messages continue the run. */
  const tight = { continueAsNewAfterUpdates: 3, continueAsNewAfterSignals: 3 };
  type Input = 'decide' | 'answer';
  type Via = 'signal' | 'update';
  /** How the run continues: accepted updates, signals, or signals while a pause is requested (carried). */
  type Way = 'updates' | 'signals' | 'pausing';
  const delaysMs = [100, 300, 600];
  const ask: ScriptStep = { type: 'await', await: { items: [{ kind: 'clarification', id: 'city', question: 'Which city?', toolCallId: 'ask_city' }] } };

  async function waitingRun(input: Input): Promise<{ workflowId: string; runId: string }> {
    const started =
      input === 'decide'
        ? await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'b' }, id: 'b' }), finalStep()], { confirmation: { tools: ['echo'] }, policy: tight }))
        : await suite.agents.start(scriptedInput([ask, finalStep()], { policy: tight }));
    await waitFor('the run waits for a person', async () => {
      const pending = await suite.agents.pendingInputs(started.workflowId);
      return pending.approvals.length === 1 || pending.await ? true : undefined;
    });
    return started;
  }

  /** Sends what makes the run continue as new; returns when the last message is accepted. */
  async function continueBy(way: Way, workflowId: string): Promise<void> {
    if (way === 'updates') {
      for (let i = 0; i < 3; i++) await suite.agents.setBudget(workflowId, { maxIterations: 25 + i });
      return;
    }
    let signals = 3;
    if (way === 'pausing') {
      await suite.agents.signal(workflowId, 'pause', { reason: 'hold on' });
      await waitFor('pausing', async () => ((await suite.agents.status(workflowId)).status === 'pausing' ? true : undefined));
      signals -= 1;
    }
    // Invalid ones: rejected in the run's log, counted all the same.
    for (let i = 0; i < signals; i++) await suite.agents.signal(workflowId, 'setBudget', { maxIterations: -1 });
  }

  async function give(input: Input, via: Via, workflowId: string): Promise<void> {
    if (input === 'decide') {
      const decision = { toolCallId: 'b', decision: 'approve', by: 'alice' } as const;
      if (via === 'update') await suite.agents.decide(workflowId, decision);
      else await suite.agents.signal(workflowId, 'decide', decision);
    } else {
      const answer = { kind: 'clarification', itemId: 'city', answer: 'Lisbon' } as const;
      if (via === 'update') await suite.agents.answer(workflowId, answer);
      else await suite.agents.signal(workflowId, 'answer', answer);
    }
  }

  /** One trial: the input, `delayMs` after the message that made the run continue; it is applied once and the run completes. */
  async function trial(way: Way, input: Input, via: Via, delayMs: number): Promise<void> {
    const { workflowId, runId } = await waitingRun(input);
    await continueBy(way, workflowId);
    await new Promise((r) => setTimeout(r, delayMs));
    await give(input, via, workflowId);
    await waitFor(`${input} by ${via} ${delayMs} ms after continuing (${way}) to be taken`, async () => {
      const pending = await suite.agents.pendingInputs(workflowId);
      return pending.approvals.length === 0 && !pending.await ? true : undefined;
    }, 15_000);
    if (way === 'pausing') await suite.agents.resume(workflowId, 'go on');
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');
    expect(observations(result).map((o) => [o.toolCallId, o.status])).toEqual([[input === 'decide' ? 'b' : 'ask_city', 'ok']]);
    expect((await executions(workflowId, runId)).length).toBeGreaterThan(1);
    const log = await logEvents(workflowId);
    expect(log.filter((e) => e.type === 'signal_rejected' && e.signal === input)).toEqual([]);
    const taken = log.filter((e) => (input === 'decide' ? e.type === 'approval_decided' : e.type === 'await_answered'));
    expect(taken).toHaveLength(1);
  }

  it.each(['updates', 'signals', 'pausing'] as const)('continued by %s: decide and answer, by signal and by update, 100, 300 and 600 ms after, are each applied once', async (way) => {
    const trials = (['decide', 'answer'] as const).flatMap((input) => (['signal', 'update'] as const).flatMap((via) => delaysMs.map((delay) => [input, via, delay] as const)));
    const outcomes = await Promise.allSettled(trials.map(([input, via, delay]) => trial(way, input, via, delay)));
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [`${trials[i]!.join(' ')}: ${(o.reason as Error).message.split('\n')[0]}`] : []));
    expect(failed).toEqual([]);
  });

  it('in a sub-agent tree: the child continues as new while its approval waits, and a decision through the parent right after is applied', async () => {
    const childSteps: ScriptStep[] = [callStep({ name: 'transfer', args: { to: 'acme', amount: 500 } }), finalStep('child done')];
    const parentSteps: ScriptStep[] = [{ type: 'tool_calls', calls: [{ id: 'pay', name: 'delegate', args: { task: 'pay acme', steps: childSteps } as never }] }, finalStep('parent done')];
    const one = async (delayMs: number, via: Via): Promise<void> => {
      const { workflowId } = await suite.agents.start({ agent: 'delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps: parentSteps }, policy: tight });
      const [waiting] = await waitFor('the child approval', async () => {
        const all = await suite.agents.pendingInputsTree(workflowId);
        return all.length ? all : undefined;
      });
      const childId = waiting!.workflowId;
      // The child has the default bounds: Temporal's own suggestion, at 90% of the lowered update
      // limit, is what makes it continue.
      await budgetUpdates(childId, maxTotalUpdates - 2);
      await new Promise((r) => setTimeout(r, delayMs));
      const decision = { decision: 'approve', toolCallId: 'call_0_0', by: 'ops' } as const;
      if (via === 'update') await suite.agents.decideInTree(workflowId, ['pay'], decision);
      else await suite.agents.signal(childId, 'decide', decision);
      const result = await suite.agents.result(workflowId);
      expect(observations(result)).toEqual([expect.objectContaining({ toolCallId: 'pay', status: 'ok', result: expect.objectContaining({ status: 'completed', text: 'child done' }) })]);
    };
    const trials = delaysMs.flatMap((delay) => (['signal', 'update'] as const).map((via) => [delay, via] as const));
    const outcomes = await Promise.allSettled(trials.map(([delay, via]) => one(delay, via)));
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [`${trials[i]!.join(' ')}: ${(o.reason as Error).message.split('\n')[0]}`] : []));
    expect(failed).toEqual([]);
  });
});
