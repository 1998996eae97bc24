import { ServiceError } from '@temporalio/client';
import { AgentClient, NoWorkerError } from '../../client/agent-client';
import { pendingInputsQuery } from '../../contracts';
import { agentSuite } from '../support/agent-suite';
import { lines } from '../support/agentctl-cli';
import { startAgentctl } from '../support/agentctl-process';
import { childWorkerEnv, cleanUpAll, startChildWorker, type ChildWorker } from '../support/child-worker';
import { addAapl, contextStep, finalStep, scriptedInput, watchlistRun } from '../support/scripts';
import { uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';

const suite = agentSuite('agentctl-outage');

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
