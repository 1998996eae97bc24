import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { RunEvent, RunResult, SessionRunRecord } from '../../contracts';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { Client, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { AgentClient } from '../../client/agent-client';
import type { SessionHandle } from '../../client/session-handle';
import { sessionQuery, type SessionReport } from '../../contracts/session';
import type { SessionScheduleDescription, SessionScheduleHandle } from '../../client/session-schedules';
import { agentSuite } from '../support/agent-suite';
import { forkBundleOption } from '../support/test-env';
import { forkRun } from '../../worker/fork';
import { runAgentctl } from '../support/agentctl-cli';
import { waitFor } from '../support/wait';
import { firingMessageId } from '../../workflows/sessions/scheduled-message';

const suite = agentSuite('sessions');

const contextStep: ScriptStep = { type: 'final', text: 'done', reportContext: true };
type View = { instructions: string | null; messages: { role: string; content?: string }[] };

/** A session's report, asked of the session workflow itself. */
async function reportOf(sessionId: string): Promise<SessionReport> {
  return suite.env.client.workflow.getHandle(AgentClient.sessionWorkflowId(sessionId)).query(sessionQuery);
}

/** The user messages a run's scripted planner saw (its final step reports its context). */
async function userMessagesSeen(workflowId: string): Promise<unknown[]> {
  return ((await runOf(workflowId)).final?.structured as unknown as View).messages.filter((m) => m.role === 'user').map((m) => m.content);
}

async function runOf(workflowId: string): Promise<RunResult> {
  return waitFor('the run to start', async () => suite.agents.result(workflowId).catch(() => undefined));
}

describe('sessions across runs', () => {
  it("a session's second run starts from the first run's state and messages", async () => {
    const sessionId = `s-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] }, confirmation: { exempt: ['add_to_watchlist'] } });
    const first = await suite.agents.sendMessage(sessionId, {
      content: 'Add AAPL to my watchlist',
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] }, { type: 'final', text: 'Added AAPL.' }] },
    });
    expect(first).toMatchObject({ runNumber: 1, status: 'queued' });
    const second = await suite.agents.sendMessage(sessionId, { content: 'What is on my watchlist?', plannerOptions: { steps: [contextStep] } });
    expect(second.workflowId).toBe(`session-${sessionId}/run-2`);

    expect((await runOf(first.workflowId)).sessionState).toEqual({ watchlist: ['AAPL'] });
    const result = await runOf(second.workflowId);
    const seen = result.final?.structured as unknown as View;
    expect(seen.instructions).toContain(`The user's watchlist is: ["AAPL"]`);
    expect(seen.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Add AAPL to my watchlist'],
      ['assistant', 'Added AAPL.'],
      ['user', 'What is on my watchlist?'],
    ]);
    const report = await waitFor('both runs recorded', async () => {
      const r = await suite.agents.session(sessionId).status();
      return r.runs.every((run) => run.status === 'completed') ? r : undefined;
    });
    expect(report).toMatchObject({ open: true, sessionState: { watchlist: ['AAPL'] }, historyLength: 4 });
  });

  it('agents.session(id) opens, takes messages, lists its runs, hands out their handles and closes', async () => {
    const session = suite.agents.session(`handle-${Date.now()}`);
    expect(await session.open({ agent: 'scripted' })).toBe(session.workflowId);
    // Opening an open session changes nothing.
    expect(await session.open({ agent: 'scripted' })).toBe(session.workflowId);
    const record = await session.sendMessage({ content: 'say hi', plannerOptions: { steps: [{ type: 'final', text: 'hi' }] } });
    expect(record).toMatchObject({ runNumber: 1, workflowId: `${session.workflowId}/run-1` });
    const run = session.run(record.runNumber);
    expect(run.workflowId).toBe(record.workflowId);
    expect((await run.result()).final?.text).toBe('hi');
    const runs = await waitFor('the run recorded as completed', async () => {
      const listed = await session.runs();
      return listed[0]?.status === 'completed' ? listed : undefined;
    });
    expect(runs.map((r) => r.runNumber)).toEqual([1]);
    expect(await session.status()).toMatchObject({ agent: 'scripted', open: true });
    await expect(session.sendMessage({ content: '' })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining('content') });
    await session.close();
    const final = await suite.env.client.workflow.getHandle(session.workflowId).result();
    expect(final).toMatchObject({ open: false });
  });

  it('continues as new between runs and keeps state, history and run numbering', async () => {
    const sessionId = `can-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted', runsPerExecution: 2 });
    const say = (text: string) => ({ content: `say ${text}`, plannerOptions: { steps: [{ type: 'final', text }] } });
    for (const text of ['one', 'two', 'three']) {
      const record = await suite.agents.sendMessage(sessionId, say(text));
      expect((await runOf(record.workflowId)).final?.text).toBe(text);
    }
    const handle = suite.env.client.workflow.getHandle(`session-${sessionId}`);
    // The current execution was continued from an earlier one.
    const history = await handle.fetchHistory();
    expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
    const report = await suite.agents.session(sessionId).status();
    expect(report.runs.map((r) => r.runNumber)).toEqual([1, 2, 3]);
    expect(report.historyLength).toBe(6);
    await suite.agents.closeSession(sessionId);
    const final = await waitFor('the session to close', async () => handle.result().catch(() => undefined));
    expect(final).toMatchObject({ open: false, historyLength: 6 });
  });

  it("a run's result, asked right after sendMessage, waits for the run to start (also one queued behind another)", async () => {
    const sessionId = `result-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    const say = (text: string) => ({ content: text, plannerOptions: { steps: [{ type: 'final', text }] } });
    // The first run takes a while, so the second waits in the session's queue meanwhile.
    const first = await suite.agents.sendMessage(sessionId, {
      content: 'first',
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 2_000 } }] }, { type: 'final', text: 'first' }] },
    });
    const second = await suite.agents.sendMessage(sessionId, say('second'));
    expect(second.status).toBe('queued');
    const [a, b] = await Promise.all([suite.agents.result(first.workflowId), suite.agents.result(second.workflowId)]);
    expect([a.final?.text, b.final?.text]).toEqual(['first', 'second']);
    // A run the session never had is still not found.
    await expect(suite.agents.result(`${AgentClient.sessionWorkflowId(sessionId)}/run-99`)).rejects.toMatchObject({ type: 'run_not_found' });
    await suite.agents.closeSession(sessionId);
  });

  it('follow, asked right after sendMessage, waits for the run to start (also one queued behind another)', async () => {
    const sessionId = `follow-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    await suite.agents.sendMessage(sessionId, {
      content: 'first',
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 1_500 } }] }, { type: 'final', text: 'first' }] },
    });
    const second = await suite.agents.sendMessage(sessionId, { content: 'second', plannerOptions: { steps: [{ type: 'final', text: 'second' }] } });
    expect(second.status).toBe('queued');
    // A read that does not wait says why there is no run yet.
    await expect(suite.agents.status(second.workflowId)).rejects.toMatchObject({ type: 'run_not_found', message: expect.stringContaining('has not started yet: its session has it queued') });
    const seen: RunEvent[] = [];
    for await (const event of suite.agents.follow(second.workflowId)) seen.push(event);
    expect(seen[0]).toMatchObject({ seq: 1, type: 'run_started' });
    expect(seen).toContainEqual(expect.objectContaining({ type: 'final', response: expect.objectContaining({ text: 'second' }) }));
    expect(seen.at(-1)).toMatchObject({ type: 'status_changed', to: 'completed' });
    await suite.agents.closeSession(sessionId);
  });

  it('a session run that starts and ends while a reader checks for it is read, not reported missing', async () => {
    const sessionId = `race-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    await suite.agents.sendMessage(sessionId, {
      content: 'first',
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 1_000 } }] }, { type: 'final', text: 'first' }] },
    });
    const second = await suite.agents.sendMessage(sessionId, { content: 'second', plannerOptions: { steps: [{ type: 'final', text: 'second' }] } });
    expect(second.status).toBe('queued');
    // The reader's server is slow to say "no such run": by the time it says so, the run has
    // started and ended (what a quick run did between a reader's checks under load).
    const completed = () => waitFor('the second run to complete', async () => ((await suite.env.client.workflow.getHandle(second.workflowId).describe().catch(() => undefined))?.status.name === 'COMPLETED' ? true : undefined));
    const slowNotFound = new Client({
      connection: suite.env.connection,
      namespace: suite.env.namespace ?? 'default',
      interceptors: {
        workflow: [
          {
            describe: async (input, next) =>
              next(input).catch(async (err: unknown) => {
                if (err instanceof WorkflowNotFoundError && input.workflowExecution.workflowId === second.workflowId) await completed();
                throw err;
              }),
          },
        ],
      },
    });
    const reader = new AgentClient(slowNotFound, suite.taskQueue);
    const { events } = await reader.events(second.workflowId, 0, 100);
    expect(events.at(-1)).toMatchObject({ type: 'status_changed', to: 'completed' });
    await suite.agents.closeSession(sessionId);
  });

  it("a killed session's queued run is not waited for: follow and result answer run_not_found", async () => {
    const sessionId = `killed-${Date.now()}`;
    const sessionWorkflowId = await suite.agents.openSession(sessionId, { agent: 'scripted' });
    await suite.agents.sendMessage(sessionId, { content: 'first', plannerOptions: { steps: [{ type: 'await', await: { items: [{ kind: 'clarification', id: 'q', question: 'Wait here?' }] } }] } });
    const second = await suite.agents.sendMessage(sessionId, { content: 'second', plannerOptions: { steps: [{ type: 'final', text: 'second' }] } });
    await suite.env.client.workflow.getHandle(sessionWorkflowId).terminate('test: the session is killed with a run queued');
    const follow = async () => {
      for await (const event of suite.agents.follow(second.workflowId)) void event;
    };
    // Within a bound: a reader that waited for the run would wait forever.
    const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still waiting after 20 s')), 20_000))]);
    await expect(within(follow())).rejects.toMatchObject({ type: 'run_not_found' });
    await expect(within(suite.agents.result(second.workflowId))).rejects.toMatchObject({ type: 'run_not_found' });
  });

  it('a message sent again with the same messageId is not queued again: the retry answers the first run', async () => {
    const sessionId = `retry-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    const message = { content: 'say once', messageId: 'order-42', plannerOptions: { steps: [{ type: 'final', text: 'once' }] } };
    const first = await suite.agents.sendMessage(sessionId, message);
    // A retry (a POST retried after a timeout): the same record, nothing queued.
    const retried = await suite.agents.sendMessage(sessionId, message);
    expect([first.runNumber, retried.runNumber]).toEqual([1, 1]);
    expect(first).toMatchObject({ runNumber: 1, messageId: 'order-42' });
    expect(retried).toMatchObject({ runNumber: 1, workflowId: first.workflowId, messageId: 'order-42' });
    // A message without an id gets the session's own, from its run number.
    const next = await suite.agents.sendMessage(sessionId, { content: 'say twice', plannerOptions: { steps: [{ type: 'final', text: 'twice' }] } });
    expect(next).toMatchObject({ runNumber: 2, messageId: 'm-2' });
    expect((await runOf(next.workflowId)).final?.text).toBe('twice');
    const report = await reportOf(sessionId);
    expect(report.runs.map((r) => [r.runNumber, r.messageId])).toEqual([
      [1, 'order-42'],
      [2, 'm-2'],
    ]);
    // Asked again once its run completed: the record as it is now.
    expect(await suite.agents.sendMessage(sessionId, message)).toMatchObject({ runNumber: 1, status: 'completed', final: 'once' });
    expect((await reportOf(sessionId)).runs).toHaveLength(2);
    await suite.agents.closeSession(sessionId);
  });

  it('remembers message ids across continue-as-new', async () => {
    const sessionId = `retry-can-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted', runsPerExecution: 1 });
    const say = (text: string) => ({ content: `say ${text}`, messageId: `id-${text}`, plannerOptions: { steps: [{ type: 'final', text }] } });
    const first = await suite.agents.sendMessage(sessionId, say('one'));
    expect((await runOf(first.workflowId)).final?.text).toBe('one');
    const second = await suite.agents.sendMessage(sessionId, say('two'));
    expect(second).toMatchObject({ runNumber: 2, messageId: 'id-two' });
    expect((await runOf(second.workflowId)).final?.text).toBe('two');
    // The session continued as new after each run: the execution that answers the retry is not the one that took it.
    const handle = suite.env.client.workflow.getHandle(AgentClient.sessionWorkflowId(sessionId));
    await waitFor('the session to continue as new after its second run', async () => {
      const history = await handle.fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      return started?.continuedExecutionRunId && (await reportOf(sessionId)).runs.length === 2 ? true : undefined;
    });
    expect(await suite.agents.sendMessage(sessionId, say('one'))).toMatchObject({ runNumber: 1, messageId: 'id-one', status: 'completed' });
    expect((await reportOf(sessionId)).runs.map((r) => r.runNumber)).toEqual([1, 2]);
    await suite.agents.closeSession(sessionId);
  });

  it('a closed session refuses a new message as run_ended naming it, and still answers a retry of one it took', async () => {
    const sessionId = `closed-${Date.now()}`;
    const workflowId = await suite.agents.openSession(sessionId, { agent: 'scripted' });
    // The run waits for an answer, so the session stays up, closed, with it running.
    const waiting = { content: 'wait', messageId: 'w-1', plannerOptions: { steps: [{ type: 'await', await: { items: [{ kind: 'clarification', id: 'q', question: 'Go on?' }] } }, { type: 'final', text: 'went on' }] } };
    const first = await suite.agents.sendMessage(sessionId, waiting);
    await suite.agents.closeSession(sessionId);
    await waitFor('the session closed', async () => ((await reportOf(sessionId)).open ? undefined : true));
    await expect(suite.agents.sendMessage(sessionId, { content: 'late', messageId: 'w-2' })).rejects.toMatchObject({ type: 'run_ended', message: `session ${workflowId} is closed: it takes no more messages` });
    expect(await suite.agents.sendMessage(sessionId, waiting)).toMatchObject({ runNumber: 1, workflowId: first.workflowId, messageId: 'w-1' });
    await waitFor('the run to wait for its answer', async () => (await suite.agents.pendingInputs(first.workflowId).catch(() => undefined))?.await ? true : undefined);
    await suite.agents.answer(first.workflowId, { kind: 'clarification', itemId: 'q', answer: 'yes' });
    expect((await runOf(first.workflowId)).final?.text).toBe('went on');
    await expect(suite.env.client.workflow.getHandle(workflowId).result()).resolves.toMatchObject({ open: false, runs: [{ runNumber: 1, messageId: 'w-1', status: 'completed' }] });
  });

  it('refuses a message id that is empty, too long or not printable, naming messageId', async () => {
    const sessionId = `bad-id-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    for (const messageId of ['', 'x'.repeat(129), 'two words', 'tab\there']) {
      await expect(suite.agents.sendMessage(sessionId, { content: 'hi', messageId })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining('messageId') });
    }
    expect((await reportOf(sessionId)).runs).toEqual([]);
    await suite.agents.closeSession(sessionId);
  });

  it('rejects an empty message', async () => {
    const sessionId = `bad-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    await expect(suite.agents.sendMessage(sessionId, { content: '' })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining('content') });
    await suite.agents.closeSession(sessionId);
  });
});

describe('a message that arrives while a run is active (whenBusy)', () => {
  type Held = 'awaiting approval' | 'tool running' | 'paused' | 'awaiting an answer';
  const states: readonly Held[] = ['awaiting approval', 'tool running', 'paused', 'awaiting an answer'];
  const first = 'Track AAPL please';
  const later = 'Actually, track MSFT instead';

  /** Opens a session whose first run holds in `state`; `release` lets the run go on (a decision, an answer, a resume, or the tool's end). */
  async function holdIn(state: Held, tag: string, shortTool = false) {
    const sessionId = `busy-${tag}-${state.replace(/ /g, '-')}-${Date.now()}`;
    const agent = state === 'awaiting approval' ? 'watchlist-scripted' : 'scripted';
    await suite.agents.openSession(sessionId, { agent, sessionState: { watchlist: [] } });
    const hold: ScriptStep[] =
      state === 'awaiting approval'
        ? [{ type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] }]
        : state === 'awaiting an answer'
          ? [{ type: 'await', await: { items: [{ kind: 'clarification', id: 'q', question: 'Which exchange?' }] } } as ScriptStep]
          : state === 'paused'
            ? [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 3_000 } }] }, { type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 200 } }] }]
            : // A tool long enough for the message to arrive while it runs, on a loaded machine too.
              [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: shortTool ? 5_000 : 600_000 } }] }];
    const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps: [...hold, contextStep] } });
    const run = suite.agents.run(record.workflowId);
    const toolCalled = async () => ((await run.events().catch(() => undefined))?.events.some((e: RunEvent) => e.type === 'tool_call' && e.name === 'sleep') ? true : undefined);
    if (state === 'paused') {
      // Asked while its first tool runs: it pauses when the tool ends (the pause answers then).
      await waitFor('the first tool call', toolCalled);
      await run.pause({ reason: 'hold' });
    }
    await waitFor('the run to hold', async () => {
      if (state === 'paused') return (await run.status().catch(() => undefined))?.status === 'paused' ? true : undefined;
      if (state === 'tool running') return (await run.events().catch(() => undefined))?.events.some((e: RunEvent) => e.type === 'tool_call' && e.name === 'sleep') ? true : undefined;
      const pending = await run.pendingInputs().catch(() => undefined);
      return (state === 'awaiting approval' ? pending?.approvals.length : pending?.await) ? true : undefined;
    });
    const release = async (): Promise<void> => {
      if (state === 'awaiting approval') {
        const { approvals } = await run.pendingInputs();
        await run.decide({ toolCallId: approvals[0]!.toolCallId, decision: 'approve' });
      } else if (state === 'awaiting an answer') await run.answer({ kind: 'clarification', itemId: 'q', answer: 'NASDAQ' });
      else if (state === 'paused') await run.resume({ reason: 'go on' });
    };
    return { sessionId, record, run, release };
  }

  const messagesSeen = async (workflowId: string) => ((await runOf(workflowId)).final?.structured as unknown as View).messages.filter((m) => m.role === 'user').map((m) => m.content);

  it('enqueue: queued behind the active run, which goes on untouched; it runs once that run has ended, with its conversation (in every state)', async () => {
    await Promise.all(
      states.map(async (state) => {
        const { sessionId, record, release } = await holdIn(state, 'enqueue', true);
        const queued = await suite.agents.sendMessage(sessionId, { content: later, whenBusy: 'enqueue', plannerOptions: { steps: [contextStep] } });
        expect(queued).toMatchObject({ runNumber: 2, status: 'queued' });
        expect(queued.delivery).toBeUndefined();
        await release();
        expect((await runOf(record.workflowId)).status).toBe('completed');
        expect(await messagesSeen(queued.workflowId)).toEqual([first, later]);
        await suite.agents.closeSession(sessionId);
      }),
    );
  });

  it('reject: answered at once naming the active run, nothing queued, the run goes on (in every state)', async () => {
    await Promise.all(
      states.map(async (state) => {
        const { sessionId, record, run } = await holdIn(state, 'reject');
        await expect(suite.agents.sendMessage(sessionId, { content: later, whenBusy: 'reject' })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining(record.workflowId) });
        const report = await reportOf(sessionId);
        expect(report.runs.map((r) => r.runNumber)).toEqual([1]);
        expect((await run.status()).status).not.toMatch(/completed|terminated|failed/);
        await run.kill({ reason: 'test done' });
        await suite.agents.closeSession(sessionId);
      }),
    );
  });

  it('interrupt: the active run ends now and the message runs next with the conversation so far (in every state)', async () => {
    await Promise.all(
      states.map(async (state) => {
        const { sessionId, record } = await holdIn(state, 'interrupt');
        const next = await suite.agents.sendMessage(sessionId, { content: later, whenBusy: 'interrupt', plannerOptions: { steps: [contextStep] } });
        expect(next).toMatchObject({ runNumber: 2, delivery: 'next', status: 'queued' });
        expect((await runOf(record.workflowId)).status).toBe('terminated');
        expect(await messagesSeen(next.workflowId)).toEqual([first, later]);
        const report = await waitFor('both runs recorded', async () => {
          const r = await reportOf(sessionId);
          return r.runs.every((x) => x.status !== 'running' && x.status !== 'queued') ? r : undefined;
        });
        expect(report.runs.map((r) => [r.runNumber, r.status, r.endedBy])).toEqual([
          [1, 'terminated', 'interrupt'],
          [2, 'completed', undefined],
        ]);
        await suite.agents.closeSession(sessionId);
      }),
    );
  });

  it('rollback: the active run ends and what it did is discarded; the message runs from the session as it was (in every state)', async () => {
    await Promise.all(
      states.map(async (state) => {
        const { sessionId, record } = await holdIn(state, 'rollback');
        const next = await suite.agents.sendMessage(sessionId, { content: later, whenBusy: 'rollback', plannerOptions: { steps: [contextStep] } });
        expect(next).toMatchObject({ runNumber: 2, delivery: 'next' });
        expect((await runOf(record.workflowId)).status).toBe('terminated');
        expect(await messagesSeen(next.workflowId)).toEqual([later]);
        const report = await waitFor('both runs recorded', async () => {
          const r = await reportOf(sessionId);
          return r.runs.every((x) => x.status !== 'running' && x.status !== 'queued') ? r : undefined;
        });
        expect(report.runs.map((r) => [r.runNumber, r.status, r.endedBy])).toEqual([
          [1, 'terminated', 'rollback'],
          [2, 'completed', undefined],
        ]);
        expect(report.historyLength).toBe(2);
        await suite.agents.closeSession(sessionId);
      }),
    );
  });

  it('rollback discards the session state the run had changed; interrupt keeps it', async () => {
    const outcome = async (whenBusy: 'rollback' | 'interrupt') => {
      const sessionId = `busy-state-${whenBusy}-${Date.now()}`;
      await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] }, confirmation: { exempt: ['add_to_watchlist'], tools: ['remove_from_watchlist'] } });
      const add = { type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] } as ScriptStep;
      const hold = { type: 'tool_calls', calls: [{ name: 'remove_from_watchlist', args: { symbols: ['AAPL'] } }] } as ScriptStep;
      const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps: [add, hold, contextStep] } });
      await waitFor('the second call to wait for approval', async () => ((await suite.agents.pendingInputs(record.workflowId).catch(() => undefined))?.approvals.length ? true : undefined));
      const next = await suite.agents.sendMessage(sessionId, { content: later, whenBusy, plannerOptions: { steps: [contextStep] } });
      return (await runOf(next.workflowId)).sessionState;
    };
    const [rolledBack, interrupted] = await Promise.all([outcome('rollback'), outcome('interrupt')]);
    expect(rolledBack).toEqual({ watchlist: [] });
    expect(interrupted).toEqual({ watchlist: ['AAPL'] });
  });

  it('steer: the message goes into the active run, which sees it at its next planner turn, and joins the conversation (in every state)', async () => {
    await Promise.all(
      states.map(async (state) => {
        const { sessionId, record, release } = await holdIn(state, 'steer', true);
        const steered = await suite.agents.sendMessage(sessionId, { content: later, whenBusy: 'steer', messageId: `steer-${state.replace(/ /g, '-')}` });
        expect(steered).toMatchObject({ runNumber: 1, workflowId: record.workflowId, delivery: 'steered' });
        await release();
        // Its planner sees it as the newest user message (after an answer the run got, if any).
        const seen = await messagesSeen(record.workflowId);
        expect([seen[0], seen[seen.length - 1]]).toEqual([first, later]);
        expect((await runOf(record.workflowId)).steered).toEqual([steered.messageId]);
        const report = await waitFor('the run recorded', async () => {
          const r = await reportOf(sessionId);
          return r.runs[0]?.status === 'completed' ? r : undefined;
        });
        expect(report.runs).toHaveLength(1);
        expect(report.runs[0]).toMatchObject({ steered: [steered.messageId] });
        // A retry of the steered message answers as the first answer did: the run it went into, under its own id.
        expect(await suite.agents.sendMessage(sessionId, { content: later, messageId: steered.messageId })).toMatchObject({ runNumber: 1, workflowId: record.workflowId, messageId: steered.messageId, delivery: 'steered' });
        await suite.agents.closeSession(sessionId);
      }),
    );
  });

  it('steer into a run that ends before its next planner turn: the message is not lost, it runs next', async () => {
    const { sessionId, record, run } = await holdIn('awaiting approval', 'steer-lost');
    const steered = await suite.agents.sendMessage(sessionId, { content: later, whenBusy: 'steer', messageId: 'late-steer', plannerOptions: { steps: [contextStep] } });
    expect(steered).toMatchObject({ runNumber: 1, delivery: 'steered' });
    await run.kill({ reason: 'an operator ended it' });
    expect((await runOf(record.workflowId)).steered).toBeUndefined();
    const report = await waitFor('the steered message to get its run', async () => {
      const r = await reportOf(sessionId);
      return r.runs.length === 2 && r.runs[1]!.status === 'completed' ? r : undefined;
    });
    expect(report.runs[1]).toMatchObject({ runNumber: 2, messageId: 'late-steer', delivery: 'next' });
    expect(await messagesSeen(report.runs[1]!.workflowId)).toEqual([first, later]);
    // Its id now names the run that took it.
    expect(await suite.agents.sendMessage(sessionId, { content: later, messageId: 'late-steer' })).toMatchObject({ runNumber: 2 });
    await suite.agents.closeSession(sessionId);
  });

  it('while a sub-agent runs: interrupt and rollback end the run and its sub-agent run; reject leaves both running; enqueue runs after; steer reaches the parent, whose next turn sees it', async () => {
    // The sub-agent run holds until the test lets it go: a long tool, or a call that waits for its approval.
    const childSteps = (hold: 'tool' | 'approval'): ScriptStep[] => [
      { type: 'tool_calls', calls: [hold === 'tool' ? { name: 'sleep', args: { ms: 600_000 } } : { name: 'transfer', args: { to: 'acme', amount: 900 } }] },
      { type: 'final', text: 'child done' },
    ];
    const open = async (tag: string, hold: 'tool' | 'approval') => {
      const sessionId = `busy-child-${tag}-${Date.now()}`;
      await suite.agents.openSession(sessionId, { agent: 'delegator' });
      const steps: ScriptStep[] = [{ type: 'tool_calls', calls: [{ name: 'delegate', args: { task: 'wait', steps: childSteps(hold) } }] }, contextStep];
      const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps } });
      const child = await waitFor('the sub-agent run', async () => (await suite.agents.status(record.workflowId).catch(() => undefined))?.children?.[0]);
      return { sessionId, record, child };
    };
    const [interrupted, steered, rolledBack, rejected, enqueued] = await Promise.all([open('interrupt', 'tool'), open('steer', 'approval'), open('rollback', 'tool'), open('reject', 'tool'), open('enqueue', 'approval')]);
    const childRunning = async (workflowId: string) => (await suite.env.client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';

    const discarded = await suite.agents.sendMessage(rolledBack.sessionId, { content: later, whenBusy: 'rollback', plannerOptions: { steps: [contextStep] } });
    expect((await runOf(rolledBack.record.workflowId)).status).toBe('terminated');
    expect(await messagesSeen(discarded.workflowId)).toEqual([later]);
    await waitFor('the rolled-back sub-agent run to end', async () => (!(await childRunning(rolledBack.child.workflowId)) ? true : undefined));

    await expect(suite.agents.sendMessage(rejected.sessionId, { content: later, whenBusy: 'reject' })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining(rejected.record.workflowId) });
    expect(await childRunning(rejected.child.workflowId)).toBe(true);
    await suite.agents.kill(rejected.record.workflowId, { reason: 'test done' });

    const queued = await suite.agents.sendMessage(enqueued.sessionId, { content: later, whenBusy: 'enqueue', plannerOptions: { steps: [contextStep] } });
    expect(queued).toMatchObject({ runNumber: 2, status: 'queued' });
    const childApproval = await waitFor("the sub-agent run's approval", async () => (await suite.agents.pendingInputs(enqueued.child.workflowId).catch(() => undefined))?.approvals[0]);
    await suite.agents.decide(enqueued.child.workflowId, { toolCallId: childApproval.toolCallId, decision: 'approve' });
    expect((await runOf(enqueued.record.workflowId)).status).toBe('completed');
    expect(await messagesSeen(queued.workflowId)).toEqual([first, later]);
    await Promise.all([rolledBack, rejected, enqueued].map(({ sessionId }) => suite.agents.closeSession(sessionId)));

    const next = await suite.agents.sendMessage(interrupted.sessionId, { content: later, whenBusy: 'interrupt', plannerOptions: { steps: [contextStep] } });
    expect((await runOf(interrupted.record.workflowId)).status).toBe('terminated');
    expect(await messagesSeen(next.workflowId)).toEqual([first, later]);
    await waitFor('the sub-agent run to end', async () => ((await suite.env.client.workflow.getHandle(interrupted.child.workflowId).describe()).status.name !== 'RUNNING' ? true : undefined));

    const approval = await waitFor("the sub-agent run's approval", async () => (await suite.agents.pendingInputs(steered.child.workflowId).catch(() => undefined))?.approvals[0]);
    const answer = await suite.agents.sendMessage(steered.sessionId, { content: later, whenBusy: 'steer' });
    expect(answer).toMatchObject({ runNumber: 1, delivery: 'steered' });
    await suite.agents.decide(steered.child.workflowId, { toolCallId: approval.toolCallId, decision: 'approve' });
    expect(await messagesSeen(steered.record.workflowId)).toEqual([first, later]);
    await Promise.all([suite.agents.closeSession(interrupted.sessionId), suite.agents.closeSession(steered.sessionId)]);
  });

  it('steered messages reach a run that continues as new while it waits for an approval, each once', async () => {
    const sessionId = `busy-can-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', policy: { continueAsNewAfterSignals: 2 } });
    const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] }, contextStep] } });
    const run = suite.agents.run(record.workflowId);
    await waitFor('the approval request', async () => ((await run.pendingInputs().catch(() => undefined))?.approvals.length ? true : undefined));
    const execution = suite.env.client.workflow.getHandle(record.workflowId);
    const firstRunId = (await execution.describe()).runId;
    const ids = ['s-1', 's-2', 's-3', 's-4'];
    for (const [i, messageId] of ids.entries()) await suite.agents.sendMessage(sessionId, { content: `steer ${i + 1}`, whenBusy: 'steer', messageId });
    // Each steer is a signal to the run: it has continued as new while it waits.
    await waitFor('the run to continue as new', async () => ((await execution.describe()).runId !== firstRunId ? true : undefined));
    const { approvals } = await waitFor('the approval, carried', async () => {
      const pending = await run.pendingInputs().catch(() => undefined);
      return pending?.approvals.length ? pending : undefined;
    });
    await run.decide({ toolCallId: approvals[0]!.toolCallId, decision: 'approve' });
    expect(await messagesSeen(record.workflowId)).toEqual([first, 'steer 1', 'steer 2', 'steer 3', 'steer 4']);
    expect((await runOf(record.workflowId)).steered).toEqual(ids);
    const report = await waitFor('the run recorded', async () => {
      const r = await reportOf(sessionId);
      return r.runs[0]?.status === 'completed' ? r : undefined;
    });
    expect(report.runs).toHaveLength(1);
    expect(report.runs[0]!.steered).toEqual(ids);
    await suite.agents.closeSession(sessionId);
  });

  it('enqueue, reject, interrupt and rollback while the active run has continued as new while it waits', async () => {
    await Promise.all(
      (['enqueue', 'reject', 'interrupt', 'rollback'] as const).map(async (whenBusy) => {
        const sessionId = `busy-can-${whenBusy}-${Date.now()}`;
        await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] }, policy: { continueAsNewAfterSignals: 2 } });
        const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] }, contextStep] } });
        const run = suite.agents.run(record.workflowId);
        await waitFor('the approval request', async () => ((await run.pendingInputs().catch(() => undefined))?.approvals.length ? true : undefined));
        const execution = suite.env.client.workflow.getHandle(record.workflowId);
        const firstRunId = (await execution.describe()).runId;
        // Two steers are two signals: the run continues as new while it waits. Its planner has not
        // seen them yet: a run that ends first gives them back, to run on their own after its next.
        for (const i of [1, 2]) await suite.agents.sendMessage(sessionId, { content: `steer ${i}`, whenBusy: 'steer', messageId: `steer-${i}`, plannerOptions: { steps: [contextStep] } });
        await waitFor('the run to continue as new', async () => ((await execution.describe()).runId !== firstRunId ? true : undefined));
        await waitFor('the approval, carried', async () => ((await run.pendingInputs().catch(() => undefined))?.approvals.length ? true : undefined));

        const message = { content: later, whenBusy, plannerOptions: { steps: [contextStep] } };
        if (whenBusy === 'reject') {
          await expect(suite.agents.sendMessage(sessionId, message)).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining(record.workflowId) });
          expect((await run.status()).status).toBe('awaiting');
          await run.kill({ reason: 'test done' });
          await suite.agents.closeSession(sessionId);
          return;
        }
        const next = await suite.agents.sendMessage(sessionId, message);
        expect(next).toMatchObject({ runNumber: 2 });
        if (whenBusy === 'enqueue') {
          const { approvals } = await run.pendingInputs();
          await run.decide({ toolCallId: approvals[0]!.toolCallId, decision: 'approve' });
        }
        const seen = await messagesSeen(next.workflowId);
        if (whenBusy === 'rollback') expect(seen).toEqual([later]);
        else expect([seen[0], seen.at(-1)]).toEqual([first, later]);
        const report = await waitFor('both runs recorded', async () => {
          const r = await reportOf(sessionId);
          return r.runs.length === (whenBusy === 'enqueue' ? 2 : 4) && r.runs.every((x) => x.status !== 'running' && x.status !== 'queued') ? r : undefined;
        });
        if (whenBusy === 'enqueue') {
          expect(report.runs.map((r) => [r.runNumber, r.status, r.endedBy, r.messageId])).toEqual([
            [1, 'completed', undefined, record.messageId],
            [2, 'completed', undefined, next.messageId],
          ]);
          expect(report.runs[0]!.steered).toEqual(['steer-1', 'steer-2']);
        } else {
          expect(report.runs.map((r) => [r.runNumber, r.status, r.endedBy, r.messageId])).toEqual([
            [1, 'terminated', whenBusy, record.messageId],
            [2, 'completed', undefined, next.messageId],
            [3, 'completed', undefined, 'steer-1'],
            [4, 'completed', undefined, 'steer-2'],
          ]);
        }
        await suite.agents.closeSession(sessionId);
      }),
    );
  });

  it("a session's own whenBusy applies to messages that say none; with no run active every policy queues", async () => {
    const sessionId = `busy-default-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted', whenBusy: 'reject' });
    const idle = await suite.agents.sendMessage(sessionId, { content: 'first', whenBusy: 'interrupt', plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 600_000 } }] }, contextStep] } });
    expect(idle).toMatchObject({ runNumber: 1, status: 'queued' });
    expect(idle.delivery).toBeUndefined();
    await waitFor('the sleep call', async () => ((await suite.agents.events(idle.workflowId).catch(() => undefined))?.events.some((e: RunEvent) => e.type === 'tool_call') ? true : undefined));
    await expect(suite.agents.sendMessage(sessionId, { content: 'second' })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining('whenBusy: reject') });
    await suite.agents.kill(idle.workflowId, { reason: 'test done' });
    await suite.agents.closeSession(sessionId);
  });
});

describe('a rewind or a fork of a session run after a whenBusy decision', () => {
  const first = 'Track AAPL please';
  const later = 'Actually, track MSFT instead';
  const add = (symbol: string): ScriptStep => ({ type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: [symbol] } }] });

  /** Approves the run's next approval request (the execution it is in now). */
  async function approveNext(workflowId: string, what: string): Promise<void> {
    const approval = await waitFor(what, async () => (await suite.agents.pendingInputs(workflowId).catch(() => undefined))?.approvals[0]);
    await suite.agents.decide(workflowId, { toolCallId: approval.toolCallId, decision: 'approve' });
  }

  /** A session whose run 1 took a steer at its second planner turn and waits for the approval of that turn's call. */
  async function steeredAndWaiting(tag: string) {
    const sessionId = `rewind-steer-${tag}-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] } });
    const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps: [add('AAPL'), add('MSFT'), contextStep] } });
    const firstApproval = await waitFor('the first approval', async () => (await suite.agents.pendingInputs(record.workflowId).catch(() => undefined))?.approvals[0]);
    const steered = await suite.agents.sendMessage(sessionId, { content: later, whenBusy: 'steer', messageId: `steer-${tag}`, plannerOptions: { steps: [contextStep] } });
    expect(steered).toMatchObject({ runNumber: 1, delivery: 'steered' });
    await suite.agents.decide(record.workflowId, { toolCallId: firstApproval.toolCallId, decision: 'approve' });
    // The second turn's planner took the steer, then asked for the approval of its call.
    await waitFor('the steer taken and the second approval', async () => {
      const events = (await suite.agents.events(record.workflowId).catch(() => undefined))?.events ?? [];
      return events.some((e) => e.type === 'intervention_applied' && e.kind === 'inject_message') && events.filter((e) => e.type === 'approval_requested').length === 2 ? true : undefined;
    });
    return { sessionId, record, steered };
  }

  it('a steer the run took before the rewind point is in the rewound run once; one after it is not re-delivered by a clean rewind, runs next as its own run, and with reapply reaches the rewound run once', async () => {
    const [before, after, reapplied] = await Promise.all([steeredAndWaiting('before'), steeredAndWaiting('after'), steeredAndWaiting('reapply')]);
    // Turn 1 ended before the steer reached the planner, but the steer's signal came before that boundary: it is replayed, not sent again.
    await suite.agents.run(before.record.workflowId).rewind({ toTurn: 1, reason: 'redo the second turn' });
    await approveNext(before.record.workflowId, 'the second approval, asked again');
    expect(await userMessagesSeen(before.record.workflowId)).toEqual([first, later]);
    expect((await runOf(before.record.workflowId)).steered).toEqual([before.steered.messageId]);

    // A clean rewind to the start: the steer came after the boundary, so the rewound run does not see it; the session runs it next.
    await suite.agents.run(after.record.workflowId).rewind({ toTurn: 0, reason: 'start over' });
    await approveNext(after.record.workflowId, 'the first approval, asked again');
    await approveNext(after.record.workflowId, 'the second approval, asked again');
    expect(await userMessagesSeen(after.record.workflowId)).toEqual([first]);
    expect((await runOf(after.record.workflowId)).steered).toBeUndefined();

    // With reapply the steer's signal comes again at the rewind point: the rewound run's first planner turn sees it, once. (The
    // approvals come again there too, before their calls ask: refused, so the calls ask again.)
    await suite.agents.run(reapplied.record.workflowId).rewind({ toTurn: 0, reapply: true, reason: 'start over, keep what came' });
    await approveNext(reapplied.record.workflowId, 'the first approval, asked again');
    await approveNext(reapplied.record.workflowId, 'the second approval, asked again');
    expect(await userMessagesSeen(reapplied.record.workflowId)).toEqual([first, later]);
    expect((await runOf(reapplied.record.workflowId)).steered).toEqual([reapplied.steered.messageId]);

    const recorded = async (sessionId: string, runs: number) =>
      waitFor('the runs recorded', async () => {
        const r = await reportOf(sessionId);
        return r.runs.length === runs && r.runs.every((x) => x.status === 'completed') ? r : undefined;
      });
    const [beforeReport, afterReport, reappliedReport] = await Promise.all([recorded(before.sessionId, 1), recorded(after.sessionId, 2), recorded(reapplied.sessionId, 1)]);
    expect(beforeReport.runs[0]!.steered).toEqual([before.steered.messageId]);
    expect(reappliedReport.runs[0]!.steered).toEqual([reapplied.steered.messageId]);
    expect(afterReport.runs[0]!.steered).toBeUndefined();
    expect(afterReport.runs[1]).toMatchObject({ runNumber: 2, messageId: after.steered.messageId, delivery: 'next' });
    expect(await userMessagesSeen(afterReport.runs[1]!.workflowId)).toEqual([first, later]);
    // Each session's conversation has the steer once.
    for (const r of [beforeReport, afterReport, reappliedReport]) expect(r.historyLength).toBe(r === afterReport ? 4 : 3);
    await Promise.all([before, after, reapplied].map((x) => suite.agents.closeSession(x.sessionId)));
  });

  it('a fork of a run that took a steer has the steer once; the fork is a run of its own, outside the session', async () => {
    const { sessionId, record, steered } = await steeredAndWaiting('fork');
    await approveNext(record.workflowId, 'the second approval');
    expect(await userMessagesSeen(record.workflowId)).toEqual([first, later]);
    const fork = await forkRun(suite.env.client, record.workflowId, { toTurn: 1, ...(await forkBundleOption()) });
    await approveNext(fork.workflowId, "the fork's approval");
    expect(await userMessagesSeen(fork.workflowId)).toEqual([first, later]);
    expect((await runOf(fork.workflowId)).steered).toEqual([steered.messageId]);
    const report = await reportOf(sessionId);
    expect(report.runs.map((r) => r.workflowId)).toEqual([record.workflowId]);
    await suite.agents.closeSession(sessionId);
  });

  it('a rewind of an interrupted run and a fork or rewind of a rolled back run go on as runs of their own: the session, moved on, keeps what it decided and takes messages', async () => {
    const ended = async (whenBusy: 'interrupt' | 'rollback') => {
      const sessionId = `rewind-${whenBusy}-${Date.now()}`;
      // The first call runs without approval (a turn to go back to), the second waits for one.
      await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] }, confirmation: { exempt: ['add_to_watchlist'], tools: ['remove_from_watchlist'] } });
      const hold: ScriptStep = { type: 'tool_calls', calls: [{ name: 'remove_from_watchlist', args: { symbols: ['AAPL'] } }] };
      const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps: [add('AAPL'), hold, contextStep] } });
      await waitFor('the second call to wait for approval', async () => ((await suite.agents.pendingInputs(record.workflowId).catch(() => undefined))?.approvals.length ? true : undefined));
      const next = await suite.agents.sendMessage(sessionId, { content: later, whenBusy, plannerOptions: { steps: [contextStep] } });
      expect((await runOf(record.workflowId)).status).toBe('terminated');
      await runOf(next.workflowId);
      const report = await waitFor('both runs recorded', async () => {
        const r = await reportOf(sessionId);
        return r.runs.every((x) => x.status !== 'running' && x.status !== 'queued') ? r : undefined;
      });
      return { sessionId, record, report };
    };
    const [interrupted, rolledBack] = await Promise.all([ended('interrupt'), ended('rollback')]);
    expect(interrupted.report.sessionState).toEqual({ watchlist: ['AAPL'] });
    expect(rolledBack.report.sessionState).toEqual({ watchlist: [] });

    // A rewind to after the first call: the kill that ended the run came after that point, so the rewound run goes on.
    await suite.agents.run(interrupted.record.workflowId).rewind({ toTurn: 1, reason: 'finish it after all' });
    await approveNext(interrupted.record.workflowId, 'the approval, asked again');
    expect(await runOf(interrupted.record.workflowId)).toMatchObject({ status: 'completed', sessionState: { watchlist: [] } });

    const fork = await forkRun(suite.env.client, rolledBack.record.workflowId, { toTurn: 1, ...(await forkBundleOption()) });
    await approveNext(fork.workflowId, "the fork's approval");
    const forked = await runOf(fork.workflowId);
    expect(forked).toMatchObject({ status: 'completed', sessionState: { watchlist: [] } });
    expect(await userMessagesSeen(fork.workflowId)).toEqual([first]);
    await suite.agents.run(rolledBack.record.workflowId).rewind({ toTurn: 1, reason: 'finish it after all' });
    await approveNext(rolledBack.record.workflowId, 'the approval, asked again');
    expect(await runOf(rolledBack.record.workflowId)).toMatchObject({ status: 'completed' });

    for (const { sessionId, report } of [interrupted, rolledBack]) {
      // The session took each run's end once, when it ended: what a rewind or a fork does later is not its.
      const now = await reportOf(sessionId);
      expect(now.runs.map((r) => [r.runNumber, r.status, r.endedBy])).toEqual(report.runs.map((r) => [r.runNumber, r.status, r.endedBy]));
      expect([now.sessionState, now.historyLength]).toEqual([report.sessionState, report.historyLength]);
      const third = await suite.agents.sendMessage(sessionId, { content: 'And GOOG', plannerOptions: { steps: [contextStep] } });
      expect(third.runNumber).toBe(3);
      expect((await runOf(third.workflowId)).status).toBe('completed');
      await suite.agents.closeSession(sessionId);
    }
  });
});

describe('sending to a session that is not open yet opens it in the same call (update-with-start)', () => {
  const say = (text: string) => ({ plannerOptions: { steps: [{ type: 'final', text }] } });

  it('opens a missing session, then reuses it: one session, every message taken', async () => {
    const sessionId = `uws-${Date.now()}`;
    const open = { agent: 'scripted' };
    const first = await suite.agents.session(sessionId).sendMessage({ content: 'one', ...say('1') }, { open });
    expect(first).toMatchObject({ runNumber: 1, status: 'queued' });
    const second = await suite.agents.session(sessionId).sendMessage({ content: 'two', ...say('2') }, { open });
    expect(second).toMatchObject({ runNumber: 2 });
    expect((await runOf(second.workflowId)).final?.text).toBe('2');
    expect(await reportOf(sessionId)).toMatchObject({ agent: 'scripted', open: true });
    await suite.agents.closeSession(sessionId);
  });

  it('two senders that both find the session missing open it once, and both messages are taken', async () => {
    const sessionId = `uws-race-${Date.now()}`;
    const open = { agent: 'scripted' };
    const records = await Promise.all(['a', 'b', 'c'].map((text) => suite.agents.sendMessage(sessionId, { content: text, messageId: `race-${text}`, ...say(text) }, { open })));
    expect(records.map((r) => r.runNumber).sort()).toEqual([1, 2, 3]);
    const executions = await suite.env.client.workflow.list({ query: `WorkflowId = '${AgentClient.sessionWorkflowId(sessionId)}'` });
    const found: string[] = [];
    for await (const execution of executions) found.push(execution.runId);
    expect(found).toHaveLength(1);
    await suite.agents.closeSession(sessionId);
  });

  it('an open session of another agent refuses the message, naming both agents; nothing is queued', async () => {
    const sessionId = `uws-agent-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    await expect(suite.agents.sendMessage(sessionId, { content: 'hi', ...say('hi') }, { open: { agent: 'watchlist-scripted' } })).rejects.toMatchObject({
      type: 'rejected',
      message: expect.stringContaining('runs agent scripted, not watchlist-scripted'),
    });
    expect((await reportOf(sessionId)).runs).toEqual([]);
    await suite.agents.closeSession(sessionId);
  });

  it('a bad opening input is refused before anything is started, naming the field', async () => {
    const sessionId = `uws-bad-${Date.now()}`;
    await expect(suite.agents.sendMessage(sessionId, { content: 'hi' }, { open: { agent: '' } })).rejects.toMatchObject({ type: 'invalid_input', message: expect.stringContaining('agent') });
    await expect(suite.env.client.workflow.getHandle(AgentClient.sessionWorkflowId(sessionId)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });
});

describe('messages on a schedule', () => {
  const say = (text: string) => ({ content: `say ${text}`, plannerOptions: { steps: [{ type: 'final', text }] } });
  async function openSession(prefix: string): Promise<SessionHandle> {
    const session = suite.agents.session(`${prefix}-${Date.now()}`);
    await session.open({ agent: 'scripted' });
    return session;
  }
  /** The schedule's description once `test` holds and every firing it counts is listed (Temporal lists a firing once its deliverer started; it keeps the latest 10). */
  const describedWhen = (what: string, schedule: SessionScheduleHandle, test: (d: SessionScheduleDescription) => boolean) =>
    waitFor(what, async () => {
      const d = await schedule.describe();
      return test(d) && d.recentFirings.length >= Math.min(d.firings, 10) ? d : undefined;
    });
  /** What a firing's deliverer answered: the session's record of the run it queued. */
  const delivered = (firing: { workflowId: string; runId: string } | undefined) => {
    if (!firing) throw new Error('no such firing');
    return suite.env.client.workflow.getHandle(firing.workflowId, firing.runId).result() as Promise<SessionRunRecord>;
  };
  const completedRuns = (session: SessionHandle, count: number) =>
    waitFor(`${count} completed runs`, async () => {
      const runs = await session.runs();
      return runs.length >= count && runs.every((r) => r.status === 'completed') ? runs : undefined;
    });
  /** The messageId of each sendMessage the session accepted, from its history. */
  async function acceptedMessageIds(session: SessionHandle): Promise<string[]> {
    const history = await suite.env.client.workflow.getHandle(session.workflowId).fetchHistory();
    return (history.events ?? []).flatMap((e) => {
      const payload = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args?.payloads?.[0]?.data;
      return payload ? [(JSON.parse(Buffer.from(payload).toString('utf8')) as { messageId?: string }).messageId ?? '(none)'] : [];
    });
  }
  const causes = (err: unknown): string => {
    const messages: string[] = [];
    for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) messages.push(`${(e as { type?: string }).type ?? e.name}: ${e.message}`);
    return messages.join(' <- ');
  };

  it('an interval firing every second posts messages that become runs, one run per firing, each with the firing id as messageId, until its firing limit', async () => {
    const session = await openSession('every');
    const schedule = await session.schedules.create('tick', { every: '1s', remainingActions: 3, message: say('tick') });
    expect(schedule.scheduleId).toBe(`${session.workflowId}/schedule-tick`);
    const spent = await describedWhen('three firings, none left', schedule, (d) => d.firings === 3 && d.remainingActions === 0);
    for (const f of spent.recentFirings) expect(f.workflowId.startsWith(`${schedule.scheduleId}-`)).toBe(true);
    const firingIds = spent.recentFirings.map((f) => firingMessageId(schedule.scheduleId, f.workflowId, f.runId));
    expect(new Set(firingIds).size).toBe(3);
    for (const id of firingIds) expect(id).toMatch(/^s:tick:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ:[0-9a-f-]{36}$/);
    const records = await Promise.all(spent.recentFirings.map(delivered));
    expect(records.map((r) => r.runNumber).sort()).toEqual([1, 2, 3]);
    const runs = await completedRuns(session, 3);
    expect(runs.map((r) => r.final)).toEqual(['tick', 'tick', 'tick']);
    // Each message carries its firing's id: the schedule's name, the second it fired in and the deliverer's first run id.
    expect(await acceptedMessageIds(session)).toEqual(firingIds);
    await schedule.delete();
    await session.close();
  });

  it('pause stops the firings, trigger fires at once (also while paused), unpause resumes them', async () => {
    const session = await openSession('pause');
    const schedule = await session.schedules.create('tick', { every: '1s', message: say('tick') });
    await describedWhen('a first firing', schedule, (d) => d.firings >= 1);
    await schedule.pause('held by the test');
    const paused = await describedWhen('the pause', schedule, (d) => d.paused);
    expect(paused.note).toBe('held by the test');
    await Promise.all(paused.recentFirings.map(delivered));

    await schedule.trigger();
    const triggered = await describedWhen('the triggered firing', schedule, (d) => d.firings > paused.firings);
    const before = new Set(paused.recentFirings.map((f) => f.runId));
    const fresh = triggered.recentFirings.filter((f) => !before.has(f.runId));
    expect(fresh).toHaveLength(1);
    const record = await delivered(fresh[0]);
    expect(record.runNumber).toBe(paused.firings + 1);
    // Nothing fired on the interval while paused: one firing since, and one run per firing.
    expect((await schedule.describe()).firings).toBe(paused.firings + 1);
    expect(await completedRuns(session, paused.firings + 1)).toHaveLength(paused.firings + 1);
    // Temporal names a firing's deliverer by the second it fired in: a trigger in the second of a
    // due firing shares its workflow id, yet each message id is the firing's own (a session that
    // drops repeated message ids keeps both).
    const messageIds = await acceptedMessageIds(session);
    expect(messageIds).toHaveLength(paused.firings + 1);
    expect(new Set(messageIds).size).toBe(messageIds.length);

    await schedule.unpause();
    const resumed = await describedWhen('a firing after unpause', schedule, (d) => !d.paused && d.firings > paused.firings + 1);
    expect(resumed.nextFirings.length).toBeGreaterThan(0);
    await schedule.delete();
    await session.close();
  });

  it('a one-time at schedule fires once and is then spent', async () => {
    const session = await openSession('at');
    const schedule = await session.schedules.create('once', { at: new Date(Date.now() + 3_000).toISOString(), message: say('once') });
    const spent = await describedWhen('the firing', schedule, (d) => d.firings === 1);
    expect(spent).toMatchObject({ remainingActions: 0, nextFirings: [] });
    expect(spent.recentFirings).toHaveLength(1);
    expect(await delivered(spent.recentFirings[0])).toMatchObject({ runNumber: 1 });
    expect((await completedRuns(session, 1)).map((r) => r.final)).toEqual(['once']);
    await schedule.delete();
    await session.close();
  });

  it('creating the same schedule twice is a no-op and another spec under its name a conflict; get, list, delete; `temporal schedule list` sees it come and go', async () => {
    const session = await openSession('ids');
    const spec = { cron: '0 9 * * *', timezone: 'Europe/Berlin', message: { content: 'Summarise my watchlist', whenBusy: 'enqueue' as const } };
    const daily = await session.schedules.create('daily', spec);
    expect((await session.schedules.create('daily', { ...spec })).scheduleId).toBe(daily.scheduleId);
    await expect(session.schedules.create('daily', { ...spec, cron: '0 10 * * *' })).rejects.toMatchObject({ type: 'schedule_exists', message: expect.stringContaining(daily.scheduleId) });
    const described = await session.schedules.get('daily').describe();
    expect(described).toMatchObject({ sessionId: session.sessionId, name: 'daily', spec, paused: false, firings: 0 });
    expect(described.nextFirings.length).toBeGreaterThan(0);
    expect(await waitFor('the schedule listed', async () => ((await session.schedules.list()).length === 1 ? session.schedules.list() : undefined))).toEqual([
      expect.objectContaining({ scheduleId: daily.scheduleId, name: 'daily', paused: false }),
    ]);

    const cli = process.env.TEMPORAL_CLI_PATH;
    if (cli === undefined) throw new Error('TEMPORAL_CLI_PATH is not set: run the integration project (its global setup provisions the CLI)');
    const temporalScheduleList = async () => (await promisify(execFile)(cli, ['schedule', 'list', '--address', suite.env.address, '--namespace', suite.env.namespace ?? 'default'])).stdout;
    await waitFor('temporal schedule list to show it', async () => ((await temporalScheduleList()).includes(daily.scheduleId) ? true : undefined));
    await daily.delete();
    await expect(daily.describe()).rejects.toMatchObject({ type: 'schedule_not_found', message: expect.stringContaining(daily.scheduleId) });
    await expect(daily.delete()).rejects.toMatchObject({ type: 'schedule_not_found' });
    await waitFor('temporal schedule list to drop it', async () => (!(await temporalScheduleList()).includes(daily.scheduleId) ? true : undefined));
    await session.close();
  });

  it('agentctl creates, lists, shows, pauses, triggers and deletes a schedule; a bad cron exits 2 naming the field', async () => {
    const session = await openSession('cli');
    const id = session.sessionId;
    const bad = await runAgentctl(suite, ['session', 'schedule', id, '--name', 'daily', '--cron', '0 9 * * MON-FUN', '--message', 'hi']);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining("cron: day-of-week field 'FUN' is not a number or SUN-SAT") });
    const created = await runAgentctl(suite, ['session', 'schedule', id, '--name', 'daily', '--every', '1d', '--offset', '9h', '--message', 'Summarise my watchlist', '--when-busy', 'enqueue', '--paused', '--json']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ scheduleId: `${session.workflowId}/schedule-daily`, paused: true, spec: { every: '1d', offset: '9h', message: { content: 'Summarise my watchlist', whenBusy: 'enqueue' } } });
    const listed = await waitFor('the schedule listed', async () => {
      const r = await runAgentctl(suite, ['session', 'schedules', id]);
      return r.stdout.includes('daily  paused') ? r : undefined;
    });
    expect(listed.code).toBe(0);
    expect((await runAgentctl(suite, ['session', 'schedule-unpause', id, '--name', 'daily', '--note', 'on'])).stdout).toBe(`schedule daily of session ${id} unpaused\n`);
    expect((await runAgentctl(suite, ['session', 'schedule-trigger', id, '--name', 'daily'])).code).toBe(0);
    const shown = await waitFor('the triggered firing shown', async () => {
      const r = await runAgentctl(suite, ['session', 'schedule-show', id, '--name', 'daily']);
      return r.stdout.includes('1 taken') ? r.stdout : undefined;
    });
    expect(shown).toContain('when        every 1d offset 9h');
    expect(shown).toContain('state       active: on');
    expect((await runAgentctl(suite, ['session', 'schedule-delete', id, '--name', 'daily'])).stdout).toBe(`schedule daily of session ${id} deleted\n`);
    expect(await runAgentctl(suite, ['session', 'schedule-show', id, '--name', 'daily'])).toMatchObject({ code: 3, stderr: expect.stringContaining(`no schedule daily on session ${id}`) });
    await session.close();
  });

  it('a firing into a closed session fails naming it, as does one into a session that never existed; neither takes a new schedule', async () => {
    const session = await openSession('closed');
    const schedule = await session.schedules.create('late', { every: '1d', paused: true, message: say('late') });
    await session.close();
    await suite.env.client.workflow.getHandle(session.workflowId).result();
    await schedule.trigger();
    const fired = await describedWhen('the firing', schedule, (d) => d.firings === 1);
    const failure: unknown = await delivered(fired.recentFirings[0]).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(causes(failure)).toMatch(new RegExp(`session_closed: schedule ${schedule.scheduleId} cannot post its message into session ${session.workflowId}: the session is closed`));
    await expect(session.schedules.create('again', { every: '1d', message: say('again') })).rejects.toMatchObject({ type: 'run_ended', message: expect.stringContaining(`session ${session.sessionId} is closed`) });
    await schedule.delete();

    const missing = suite.agents.session(`missing-${Date.now()}`);
    await expect(missing.schedules.create('daily', { cron: '@daily', message: say('x') })).rejects.toMatchObject({ type: 'run_not_found', message: expect.stringContaining(`session ${missing.sessionId} not found`) });
    const direct = await suite.env.client.workflow
      .execute('agentScheduledMessage', { taskQueue: suite.taskQueue, workflowId: `${missing.workflowId}/schedule-manual-1`, args: [{ sessionWorkflowId: missing.workflowId, scheduleId: 'manual', message: say('x') }] })
      .catch((err: unknown) => err);
    expect(causes(direct)).toContain(`session_not_found: schedule manual cannot post its message into session ${missing.workflowId}: no such session`);
  });
});

describe("a session's queue: visible and editable", () => {
  it('edit, drop and move to the front a message that waits; the queue runs in its new order; a message that runs or ran is refused by id', async () => {
    const sessionId = `queue-${Date.now()}`;
    const session = suite.agents.session(sessionId);
    await session.open({ agent: 'scripted' });
    const first = await session.sendMessage({ content: 'hold', messageId: 'hold', plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 600_000 } }] }, contextStep] } });
    await waitFor('the first run to call its tool', async () => ((await suite.agents.events(first.workflowId).catch(() => undefined))?.events.some((e: RunEvent) => e.type === 'tool_call') ? true : undefined));
    for (const id of ['b', 'c', 'd']) await session.sendMessage({ content: `say ${id}`, messageId: id, plannerOptions: { steps: [contextStep] } });
    expect((await session.status()).queue?.map((m) => m.messageId)).toEqual(['b', 'c', 'd']);

    expect((await session.editQueue({ action: 'edit', messageId: 'c', content: 'say C' })).map((m) => m.content)).toEqual(['say b', 'say C', 'say d']);
    expect((await session.editQueue({ action: 'drop', messageId: 'd', reason: 'not needed' })).map((m) => m.messageId)).toEqual(['b', 'c']);
    expect((await session.editQueue({ action: 'front', messageId: 'c' })).map((m) => m.messageId)).toEqual(['c', 'b']);
    await expect(session.editQueue({ action: 'front', messageId: 'hold' })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining('message hold does not wait in the queue: it is running (run 1)') });
    await expect(session.editQueue({ action: 'drop', messageId: 'd' })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining('it is dropped') });
    // A retry of the dropped message is answered, not queued again.
    expect(await session.sendMessage({ content: 'say d', messageId: 'd' })).toMatchObject({ messageId: 'd', status: 'dropped' });

    await suite.agents.kill(first.workflowId, { reason: 'let the queue run' });
    const [c, b] = await Promise.all(['c', 'b'].map((id) => waitFor(`the run of ${id}`, async () => (await session.status()).runs.find((r) => r.messageId === id && r.status === 'completed'))));
    // c ran first, edited: b's run sees it before its own message.
    const seen = await userMessagesSeen(b!.workflowId);
    expect(seen.slice(-2)).toEqual(['say C', 'say b']);
    expect(c!.runNumber).toBeGreaterThan(b!.runNumber);
    await session.close();
  });
});

describe("a session's events", () => {
  it('record each decision about its messages and runs, in order, and what each steer came to', async () => {
    const sessionId = `events-${Date.now()}`;
    const session = suite.agents.session(sessionId);
    await session.open({ agent: 'scripted' });
    const final = { plannerOptions: { steps: [contextStep] } };
    const hold = await session.sendMessage({ content: 'hold', messageId: 'hold', plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 600_000 } }] }, contextStep] } });
    await waitFor('the first run to call its tool', async () => ((await suite.agents.events(hold.workflowId).catch(() => undefined))?.events.some((e: RunEvent) => e.type === 'tool_call') ? true : undefined));
    await session.sendMessage({ content: 'b', messageId: 'b', ...final });
    await session.sendMessage({ content: 'c', messageId: 'c', ...final });
    await session.editQueue({ action: 'front', messageId: 'c' });
    await session.sendMessage({ content: 'steered', messageId: 's', whenBusy: 'steer', ...final });
    await session.sendMessage({ content: 'b', messageId: 'b', ...final });
    await session.sendMessage({ content: 'now', messageId: 'i', whenBusy: 'interrupt', ...final });
    const { events } = await waitFor('every run to end', async () => {
      const read = await session.events();
      return read.events.filter((e) => e.type === 'run_ended').length === 5 ? read : undefined;
    });
    const line = (e: (typeof events)[number]): string => {
      switch (e.type) {
        case 'message_taken':
          return `taken ${e.messageId} ${e.delivery} #${e.runNumber}`;
        case 'message_repeated':
          return `repeated ${e.messageId} #${e.runNumber}`;
        case 'run_ending':
          return `ending #${e.runNumber} ${e.by} ${e.messageId}`;
        case 'run_started':
          return `started #${e.runNumber}`;
        case 'run_ended':
          return `ended #${e.runNumber} ${e.status}${e.endedBy ? ` ${e.endedBy}` : ''}`;
        case 'steer_delivered':
          return `seen ${e.messageId} #${e.runNumber}`;
        case 'steer_requeued':
          return `requeued ${e.messageId} #${e.fromRun} -> #${e.runNumber}`;
        case 'queue_edited':
          return `queue ${e.action} ${e.messageId}`;
      }
    };
    expect(events.map(line)).toEqual([
      'taken hold queued #1',
      'started #1',
      'taken b queued #2',
      'taken c queued #3',
      'queue front c',
      'taken s steered #1',
      'repeated b #2',
      'taken i next #4',
      'ending #1 interrupt i',
      'ended #1 terminated interrupt',
      // The interrupted run never saw the steer: it runs as its own run, after the interrupting message.
      'requeued s #1 -> #5',
      'started #4',
      'ended #4 completed',
      'started #5',
      'ended #5 completed',
      'started #3',
      'ended #3 completed',
      'started #2',
      'ended #2 completed',
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect((await session.events(events.length - 2)).events.map((e) => e.seq)).toEqual([events.length - 1, events.length]);
    await session.close();
  });
});
