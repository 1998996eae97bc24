import { ServiceError } from '@temporalio/client';
import { AgentClient, NoWorkerError } from '../../client/agent-client';
import { pendingInputsQuery, type RunInput } from '../../contracts';
import { startAgentServer } from '../../server';
import { agentSuite } from '../support/agent-suite';
import { agentctlEnv, lines, runAgentctlWith } from '../support/agentctl-cli';
import { startAgentctl } from '../support/agentctl-process';
import { childWorkerEnv, cleanUpAll, startChildWorker, type ChildWorker } from '../support/child-worker';
import { addAapl, callStep, contextStep, finalStep, scriptedInput, watchlistRun } from '../support/scripts';
import { createTestWorker, uniqueTaskQueue } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { waitFor } from '../support/wait';

// A namespace of its own: the inbox lists every waiting run of the namespace.
const suite = agentSuite('agentctl-outage', undefined, { ownNamespace: true });

/** A delegator whose sub-agent run (call `pay`) asks to confirm a transfer. */
const delegatorRun: RunInput = {
  agent: 'delegator',
  messages: [{ role: 'user', content: 'delegate' }],
  plannerOptions: {
    steps: [
      { type: 'tool_calls', calls: [{ id: 'pay', name: 'delegate', args: { task: 'pay acme', steps: [callStep({ name: 'transfer', args: { to: 'acme', amount: 500 } }), finalStep('paid')] } as never }] },
      finalStep('parent done'),
    ],
  },
};

/**
 * Three runs that wait for people (an approval, a sub-agent run's approval, a question) on a task
 * queue whose only worker stops as the file begins: by the file's last test, no worker has polled
 * that queue for over a minute, as after an outage.
 */
const idle = { taskQueue: uniqueTaskQueue('idle'), root: '', delegator: '', asking: '' };
beforeAll(async () => {
  const agents = new AgentClient(suite.env.client, idle.taskQueue);
  const worker = await createTestWorker(suite.env, idle.taskQueue, allToolImplementations());
  await worker.runUntil(async () => {
    const ask = scriptedInput([{ type: 'await', await: { items: [{ kind: 'clarification', id: 'city', question: 'Which city?' }] } }, finalStep()]);
    const [root = '', delegator = '', asking = ''] = await Promise.all([watchlistRun([addAapl, contextStep]), delegatorRun, ask].map(async (input) => (await agents.start(input)).workflowId));
    Object.assign(idle, { root, delegator, asking });
    for (const id of [idle.root, idle.delegator, idle.asking]) {
      await waitFor(`${id} to wait for a person`, async () => ((await agents.pendingInputs(id)).tree.length > 0 ? true : undefined));
    }
  });
});

/** The server's answer to a query once no worker has polled the run's task queue for a while. */
async function serverSaysNoPoller(workflowId: string): Promise<true | undefined> {
  try {
    await suite.env.client.workflow.getHandle(workflowId).query(pendingInputsQuery);
    return undefined;
  } catch (err) {
    return err instanceof ServiceError && (err.cause as { code?: unknown } | undefined)?.code === 9 ? true : undefined;
  }
}

describe('agentctl with no worker on the task queue at all', () => {
  it('a kill is queued in the run\'s history and says so; a session message, which has no signal, is refused at once', async () => {
    const queue = uniqueTaskQueue('no-worker');
    const cli = (...args: string[]) => startAgentctl(suite, args, { env: { TEMPORAL_TASK_QUEUE: queue }, limitMs: 60_000 }).exited;
    const agents = new AgentClient(suite.env.client, queue);
    // A start there would wait for ever: refused, naming the queue and how to start anyway.
    const refused = await agents.start(scriptedInput([finalStep('never')])).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(NoWorkerError);
    expect((refused as NoWorkerError).message).toBe(
      `no worker polls task queue ${queue} (none seen in the last 5 minutes); the run was not started: start a worker on task queue ${queue}, ` +
        'or use the task queue your workers poll (AgentClient.fromEnv() reads TEMPORAL_TASK_QUEUE), or pass allowNoWorker: true to start it anyway (it waits on the queue for a worker)',
    );
    const { workflowId } = await agents.start(scriptedInput([finalStep('never')]), { allowNoWorker: true });
    // Reads that need a worker say which queue has none.
    await expect(agents.status(workflowId, { timeoutMs: 2_000 })).rejects.toThrow(
      `no worker answered a query of run ${workflowId} within 2000 ms: no worker polls task queue ${queue} (none seen in the last 5 minutes)`,
    );

    const kill = await cli('kill', workflowId, '--reason', 'no worker', '--json');
    expect(kill).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(kill.stdout)).toEqual({ workflowId, queued: true, signal: 'kill', reason: `no worker polls task queue ${queue} (none seen in the last 5 minutes)` });
    const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'kill')).toHaveLength(1);

    const id = `no-worker-${queue.slice(-8)}`;
    await agents.openSession(id, { agent: 'scripted' });
    const started = Date.now();
    const send = await cli('session', 'send', id, '--message', 'hello?');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(send).toMatchObject({ code: 1, stdout: '', stderr: `agentctl: no worker polls task queue ${queue} (none seen in the last 5 minutes); the request was not sent\n` });
  });
});

describe('agentctl while the worker of a run has crashed', () => {
  const workers: ChildWorker[] = [];
  afterAll(() => cleanUpAll(...workers.map((w) => () => w.stop())));

  it('reads show the run as recorded, saying no worker polls; an approval is queued, says so, and applies when a worker returns; a follower goes on', async () => {
    const queue = uniqueTaskQueue('outage');
    const { env } = childWorkerEnv(suite.env.address, suite.env.namespace ?? 'default', queue);
    workers.push(await startChildWorker(env));
    const agents = new AgentClient(suite.env.client, queue);
    const { workflowId } = await agents.start(watchlistRun([addAapl, contextStep]));
    await waitFor('the approval request', async () => (await agents.pendingInputs(workflowId)).approvals[0]);
    const cli = (...args: string[]) => startAgentctl(suite, args, { env: { TEMPORAL_TASK_QUEUE: queue }, limitMs: 60_000 });
    const follower = startAgentctl(suite, ['events', workflowId, '--follow'], { env: { TEMPORAL_TASK_QUEUE: queue }, limitMs: 180_000 });
    await follower.printed(/ approval_requested /);

    await workers[0]?.kill9();
    // Before the server gives up on the worker, a query waits out its deadline: the error names the queue.
    await expect(agents.status(workflowId, { timeoutMs: 1_000 })).rejects.toThrow(new RegExp(`^no worker answered a query of run ${workflowId}( within 1000 ms)?: (task queue ${queue} was last polled at \\S+; is its worker running\\?|no worker polls task queue ${queue} )`));
    // The crash as an operator meets it: the server no longer waits for a worker to answer queries.
    await waitFor('the server to report no poller', () => serverSaysNoPoller(workflowId), 90_000);

    const [status, events, pending, tree] = await Promise.all([
      cli('status', workflowId).exited,
      cli('events', workflowId).exited,
      cli('pending', workflowId).exited,
      cli('tree', workflowId).exited,
    ]);
    const recorded = new RegExp(`^agentctl: no worker (polls task queue ${queue} \\(last seen \\S+, \\d+ s ago\\)|answered run ${workflowId} in time \\(task queue ${queue}, last polled \\S+\\)); showing the run as recorded$`, 'm');
    for (const read of [status, events, pending, tree]) {
      expect(read.stderr).toMatch(recorded);
      expect(read.code).toBe(0);
    }
    expect(lines(status.stdout)).toEqual(expect.arrayContaining([expect.stringMatching(/^source +history/), 'status      awaiting']));
    expect(lines(events.stdout)[0]).toMatch(/^h1 +\S+ +run_started +agent=watchlist-scripted/);
    expect(lines(tree.stdout)).toEqual([`${workflowId}  watchlist-scripted  awaiting`]);
    expect(lines(pending.stdout)).toEqual(['what each run waits on needs a worker to read; the runs as recorded:', `${workflowId}  watchlist-scripted  awaiting`]);

    const started = Date.now();
    const approve = await cli('approve', workflowId, '--call', 'call_0_0', '--by', 'night-shift').exited;
    expect(approve.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(approve.stdout).toMatch(
      new RegExp(`^no worker (polls task queue ${queue} \\(last seen [^)]+\\)|answered run ${workflowId} within 5 s [^;]+); the decision is queued and will apply when a worker returns \\(sent as the decide signal; the run checks it then\\)\\n$`),
    );

    workers.push(await startChildWorker(env));
    const result = await agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', sessionState: { watchlist: ['AAPL'] } });
    const followed = await follower.exited;
    expect(followed.code).toBe(0);
    // It said what it waited for while the worker was away.
    expect(followed.stderr).toMatch(/^agentctl: the run does not answer \(no worker answered a query of run .*\); reconnecting in /m);
    expect(lines(followed.stdout).at(-1)).toMatch(/status_changed +running -> completed$/);
    expect(lines(followed.stdout).some((l) => / approval_decided .*approve/.test(l))).toBe(true);
  });
});

describe('the HTTP API and agentctl once no worker has polled the runs\' task queue for a while', () => {
  it('reads answer from the histories at once, naming the queue and when a worker last polled it; the inbox lists what waits; a sub-agent run\'s decision is queued like a top run\'s', async () => {
    const agents = new AgentClient(suite.env.client, idle.taskQueue);
    const presence = await waitFor('the idle queue to look unpolled', async () => {
      const seen = await agents.workerPresence(idle.root);
      return seen.polled ? undefined : seen;
    }, 120_000);
    expect(presence.lastSeen).toEqual(expect.any(String));
    // The reason says the server's record of the queue's pollers decided it: no query was sent and waited for.
    const noWorker = {
      taskQueue: idle.taskQueue,
      polled: false,
      lastSeen: presence.lastSeen,
      reason: expect.stringMatching(new RegExp(`^no worker polls task queue ${idle.taskQueue} \\(last seen ${presence.lastSeen}, \\d+ s ago\\)$`)),
    };
    const child = await waitFor('the sub-agent run', async () => (await agents.treeFromHistory(idle.delegator)).children[0]?.workflowId);
    const server = await startAgentServer({ agents, auth: { localDev: true, tokens: [] } });
    try {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const call = async (path: string, body?: unknown): Promise<{ status: number; body: any }> => {
        const response = await fetch(`${server.url}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: response.status, body: await response.json() };
      };
      expect(await call(`/api/runs/${idle.root}`)).toMatchObject({ status: 200, body: { source: 'history', workflowId: idle.root, agent: 'watchlist-scripted', status: 'awaiting', workflowStatus: 'RUNNING', noWorker } });
      expect(await call(`/api/runs/${idle.root}/pending`)).toEqual({
        status: 200,
        body: { source: 'history', noWorker, approvals: [], tree: [], waiting: [{ workflowId: idle.root, agent: 'watchlist-scripted', path: [] }] },
      });
      expect((await call(`/api/runs/${idle.delegator}/pending`)).body.waiting).toEqual([{ workflowId: child, agent: 'scripted', path: ['pay'] }]);
      expect(await call(`/api/runs/${idle.delegator}/tree`)).toEqual({
        status: 200,
        body: {
          source: 'history',
          noWorker,
          runs: [
            { workflowId: idle.delegator, agent: 'delegator', status: 'running', path: [], startTime: expect.any(String) },
            { workflowId: child, agent: 'scripted', status: 'awaiting', path: ['pay'], toolCallId: 'pay', startTime: expect.any(String) },
          ],
          pending: [],
          waiting: [{ workflowId: child, agent: 'scripted', path: ['pay'] }],
        },
      });
      const events = await call(`/api/runs/${idle.asking}/events?after=0`);
      expect(events).toMatchObject({ status: 200, body: { source: 'history', noWorker, events: [], nextAfterSeq: 0, status: 'awaiting' } });
      expect(events.body.steps[0]).toMatchObject({ kind: 'run_started', detail: expect.stringMatching(/^agent=scripted /) });

      const inbox = await call('/api/inbox');
      expect(inbox.status).toBe(200);
      const waiting = (workflowId: string, path: string[] = []) => ({ workflowId, path, approvals: [], source: 'history' });
      expect(inbox.body.trees).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ workflowId: idle.root, agent: 'watchlist-scripted', noWorker, waiting: [waiting(idle.root)] }),
          expect.objectContaining({ workflowId: idle.delegator, agent: 'delegator', noWorker, waiting: [waiting(child, ['pay'])] }),
          expect.objectContaining({ workflowId: idle.asking, agent: 'scripted', noWorker, waiting: [waiting(idle.asking)] }),
        ]),
      );

      // A decision through the tree is refused like one for the top run, naming the queue; nothing is sent.
      const refused = { status: 503, body: { error: { type: 'unavailable', message: expect.stringMatching(new RegExp(`^no worker polls task queue ${idle.taskQueue} \\(last seen .+; the request was not sent$`)) } } };
      expect(await call(`/api/runs/${idle.delegator}/tree/decisions`, { path: ['pay'], decision: { decision: 'approve', toolCallId: 'call_0_0' } })).toEqual(refused);
      expect(await call(`/api/runs/${idle.root}/decisions`, { decision: 'approve', toolCallId: 'call_0_0' })).toEqual(refused);
    } finally {
      await server.close();
    }

    // agentctl reads the histories as the API does, saying why.
    const env = agentctlEnv(suite, { TEMPORAL_TASK_QUEUE: idle.taskQueue });
    const [status, pending] = await Promise.all([runAgentctlWith(env, ['status', idle.asking]), runAgentctlWith(env, ['pending', idle.delegator])]);
    const recorded = new RegExp(`^agentctl: no worker polls task queue ${idle.taskQueue} \\(last seen [^)]+\\); showing the run as recorded\\n$`);
    for (const read of [status, pending]) expect(read).toMatchObject({ code: 0, stderr: expect.stringMatching(recorded) });
    expect(lines(status.stdout)).toContain('status      awaiting');
    expect(lines(pending.stdout)).toEqual(['what each run waits on needs a worker to read; the runs as recorded:', `${idle.delegator}  delegator  running`, `  pay -> ${child}  scripted  awaiting`]);

    // agentctl queues a sub-agent run's decision as it queues the top run's.
    const queued = new RegExp(`^no worker polls task queue ${idle.taskQueue} \\(last seen [^)]+\\); the decision is queued and will apply when a worker returns \\(sent as the decide signal; the run checks it then\\)\\n$`);
    const [childApproval, rootApproval] = await Promise.all([
      runAgentctlWith(env, ['approve', idle.delegator, '--path', 'pay', '--call', 'call_0_0', '--by', 'night-shift']),
      runAgentctlWith(env, ['approve', idle.root, '--call', 'call_0_0', '--by', 'night-shift']),
    ]);
    for (const approval of [childApproval, rootApproval]) expect(approval).toMatchObject({ code: 0, stdout: expect.stringMatching(queued), stderr: '' });

    // Both apply once a worker returns.
    const worker = await createTestWorker(suite.env, idle.taskQueue, allToolImplementations());
    await worker.runUntil(async () => {
      // An update is refused until the server has seen the worker poll.
      await waitFor('the worker to poll', async () => ((await agents.workerPresence(idle.asking)).polled ? true : undefined));
      await agents.answer(idle.asking, { kind: 'clarification', itemId: 'city', answer: 'Paris' });
      const results = await Promise.all([idle.root, idle.delegator, idle.asking].map((id) => agents.result(id)));
      expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
      expect((await agents.events(idle.delegator, 0, 1000)).events).toContainEqual(expect.objectContaining({ type: 'child_ended', status: 'completed' }));
    });
  });
});
