import type { RunEvent, RunResult } from '../../contracts';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { AgentClient } from '../../client/agent-client';
import { agentSuite } from '../support/agent-suite';
import { waitFor } from '../support/wait';

const suite = agentSuite('sessions');

const contextStep: ScriptStep = { type: 'final', text: 'done', reportContext: true };
type View = { instructions: string | null; messages: { role: string; content?: string }[] };

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

  it('rejects an empty message', async () => {
    const sessionId = `bad-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    await expect(suite.agents.sendMessage(sessionId, { content: '' })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining('content') });
    await suite.agents.closeSession(sessionId);
  });
});
