import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentClient } from '../../client/agent-client';
import { eventPageSchema, pauseResultSchema, runEventSchema, runResultSchema, runStatusReportSchema } from '../../contracts';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { agentSuite } from '../support/agent-suite';
import { lines, runAgentctl, runAgentctlProcess } from '../support/agentctl-cli';
import { startAgentctl } from '../support/agentctl-process';
import { uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';
import { testTempDir } from '../support/temp-dir';

// A tenants file on the worker: runs of a tenant join its account (`tenant show`).
const suite = agentSuite('agentctl', undefined, { plugin: { tenants: { default: { quota: {} } } } });
// Commands run in this process (the binary's code without its process); the first and the last
// case run the binary itself, for its output, its exit codes and its exit once a command is done.
const agentctl = (...args: string[]) => runAgentctl(suite, args);
const agentctlBinary = (...args: string[]) => runAgentctlProcess(suite, args);

async function toolCallStarted(workflowId: string): Promise<void> {
  await waitFor('a tool_call event', async () => ((await suite.agents.events(workflowId)).events.some((e) => e.type === 'tool_call') ? true : undefined));
}


describe('agentctl against a real dev server', () => {
  it('start prints the run id; events --follow prints every event to the end; status --json parses', async () => {
    const script = JSON.stringify({ steps: [callStep({ name: 'echo', args: { text: 'hi' } }), finalStep('all done')] });
    const started = await agentctlBinary('start', '--agent', 'scripted', '--message', 'follow the script', '--planner-options', script);
    expect(started).toMatchObject({ code: 0 });
    const workflowId = started.stdout.trim();
    expect(workflowId).toMatch(/^run-scripted-/);

    const followed = await agentctlBinary('events', workflowId, '--follow');
    expect(followed).toMatchObject({ code: 0 });
    const printed = lines(followed.stdout);
    expect(printed[0]).toMatch(/^# {2}1 .* run_started +agent=scripted messages=1$/);
    expect(printed.some((l) => / final +all done$/.test(l))).toBe(true);
    expect(printed.at(-1)).toMatch(/status_changed +running -> completed$/);

    const status = await agentctlBinary('status', workflowId, '--json');
    expect(status).toMatchObject({ code: 0 });
    const report = runStatusReportSchema.parse(JSON.parse(status.stdout));
    expect(report).toMatchObject({ status: 'completed', agent: 'scripted', iteration: 1 });

    const page = await agentctlBinary('events', workflowId, '--after', '2', '--limit', '2', '--json');
    expect(eventPageSchema.parse(JSON.parse(page.stdout)).events.map((e) => e.seq)).toEqual([3, 4]);

    // An operation on the ended run: exit 4.
    const pause = await agentctlBinary('pause', workflowId);
    expect(pause.code).toBe(4);
    expect(pause.stderr.trim()).toMatch(new RegExp(`^agentctl: run ${workflowId} has ended`));
  });

  it('events --follow goes on through a rewind that lands while it waits: prints where the log was replaced, then the new events to the end', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'one' } }), callStep({ name: 'sleep', args: { ms: 8_000 } }), finalStep('after the rewind')]));
    const follower = startAgentctl(suite, ['events', workflowId, '--follow']);
    await follower.printed(/ tool_call .*sleep/);
    // The follower now waits on the run's long poll (nothing happens until the sleep ends); let it get there.
    await new Promise((r) => setTimeout(r, 1_000));
    const { runId } = await suite.agents.rewind(workflowId, { toTurn: 1, reason: 'while followed' });
    const done = await follower.exited;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    const printed = lines(done.stdout);
    expect(printed).toContainEqual(expect.stringMatching(new RegExp(`^-- the run was rewound \\(run ${runId}\\): events from seq \\d+ on are replaced --$`)));
    expect(printed.at(-2)).toMatch(/ final +after the rewind$/);
    expect(printed.at(-1)).toMatch(/status_changed +running -> completed$/);
  });

  it('start of an agent the worker does not have, or with options it refuses, exits 1 with the run\'s reason', async () => {
    const unknown = await agentctl('start', '--agent', 'nobody', '--message', 'hi');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim()).toMatch(/^agentctl: run run-nobody-\w+ failed at start: agent "nobody" is not in this bundle; its agents: .*scripted/);

    const badOptions = await agentctl('start', '--agent', 'scripted', '--message', 'hi', '--planner-options', '{"steps":"not a list"}');
    expect(badOptions.code).toBe(1);
    expect(badOptions.stderr).toMatch(/failed at start: invalid planner options for agent scripted/);

    expect((await agentctl('start', '--agent', 'scripted', '--message', 'hi', '--confirm-ms', '-5')).code).toBe(2);
  });

  it('start --follow of a run that fails exits 1 with its reason, also when it fails at start; an unreachable server is named', async () => {
    const script = JSON.stringify({ steps: [callStep({ name: 'sleep', args: { ms: 200 } }), callStep({ name: 'echo', args: { text: 'explode' } }), finalStep()] });
    const failing = await agentctl('start', '--agent', 'faulty', '--message', 'go', '--planner-options', script, '--follow');
    expect(failing.code).toBe(1);
    expect(lines(failing.stdout).some((l) => / tool_call .*sleep/.test(l))).toBe(true);
    expect(failing.stderr).toBe('agentctl: run failed: agent faulty: its before_tool hook threw: hook bug\n');

    // Not waiting for the first task: the follow finds a run that never registered its queries.
    const unknown = await agentctl('start', '--agent', 'nobody', '--message', 'hi', '--confirm-ms', '0', '--follow');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).not.toMatch(/did not register a handler/);
    expect(unknown.stderr).toMatch(/\nagentctl: run failed: agent "nobody" is not in this bundle/);
    expect(lines(unknown.stdout).at(-1)).toMatch(/ run_failed +agent "nobody" is not in this bundle/);

    // Both wait out the SDK's connect deadline (10 s), together.
    const [unreachable, connectError] = await Promise.all([
      agentctl('status', 'some-run', '--address', '127.0.0.1:1'),
      AgentClient.connect({ address: '127.0.0.1:1', namespace: 'agents', taskQueue: 'notes' }).then(
        () => undefined,
        (err: unknown) => err,
      ),
    ]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(
      'agentctl: cannot reach the Temporal server at 127.0.0.1:1 (namespace default): Failed to connect before the deadline; is it running? Set TEMPORAL_ADDRESS or --address to where it listens\n',
    );
    // The library's own error names the address, not only the SDK's "Failed to connect before the deadline".
    expect((connectError as Error).message).toBe('cannot reach the Temporal server at 127.0.0.1:1 (namespace agents): Failed to connect before the deadline');
  });

  it('status and events read the history when no worker answers: a run without a worker, a run that failed at start', async () => {
    const queue = uniqueTaskQueue('no-worker');
    // agentctl start refuses a queue no worker polls, naming its flag to start anyway.
    const refused = await agentctl('start', '--agent', 'scripted', '--message', 'hi', '--task-queue', queue);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `agentctl: no worker polls task queue ${queue} (none seen in the last 5 minutes); the run was not started: start a worker on task queue ${queue}, ` +
        'or use the task queue your workers poll (--task-queue or TEMPORAL_TASK_QUEUE), or pass --allow-no-worker to start it anyway (it waits on the queue for a worker)\n',
    });
    const queued = await agentctl('start', '--agent', 'scripted', '--message', 'hi', '--task-queue', queue, '--allow-no-worker', '--confirm-ms', '200');
    expect(queued.code).toBe(0);
    expect(queued.stderr).toBe(`agentctl: no worker has started run ${queued.stdout.trim()} within 200 ms; it stays queued on task queue ${queue}\n`);
    const { workflowId } = await new AgentClient(suite.env.client, queue).start(scriptedInput([finalStep('never')]), { allowNoWorker: true });
    const status = await agentctl('status', workflowId, '--task-queue', queue, '--json');
    expect(status).toMatchObject({ code: 0 });
    expect(status.stderr).toBe(`agentctl: no worker polls task queue ${queue} (none seen in the last 5 minutes); showing the run as recorded\n`);
    expect(JSON.parse(status.stdout)).toMatchObject({ source: 'history', workflowId, agent: 'scripted', status: 'running', workflowStatus: 'RUNNING' });
    const events = await agentctl('events', workflowId, '--task-queue', queue);
    expect(events.code).toBe(0);
    expect(lines(events.stdout)).toEqual([expect.stringMatching(/^h1 +\S+ +run_started +agent=scripted messages=1$/)]);

    const failed = await agentctl('start', '--agent', 'nobody', '--message', 'hi', '--confirm-ms', '0');
    const failedId = failed.stdout.trim();
    await waitFor('the run to fail', async () => ((await suite.env.client.workflow.getHandle(failedId).describe()).status.name === 'FAILED' ? true : undefined));
    const text = await agentctl('status', failedId);
    expect(text.code).toBe(0);
    expect(lines(text.stdout)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^source +history/), 'status      failed', expect.stringMatching(/^failure +agent "nobody" is not in this bundle/)]),
    );
  });

  it('session open, send --follow, state, list and close drive a conversation; start --session-id is gone', async () => {
    const id = `cli-${suite.taskQueue.slice(-8)}`;
    const say = (text: string) => JSON.stringify({ steps: [finalStep(text)] });
    expect(await agentctl('session', 'open', id, '--agent', 'scripted')).toMatchObject({ code: 0, stdout: `session ${id} open (session-${id})\n` });

    const first = await agentctl('session', 'send', id, '--message', 'say one', '--planner-options', say('one'), '--follow');
    expect(first).toMatchObject({ code: 0 });
    const printed = lines(first.stdout);
    expect(printed[0]).toBe(`run #1 of session ${id}: session-${id}/run-1 (queued)`);
    expect(printed).toContain('result: completed: one');

    const sendTwo = () => agentctl('session', 'send', id, '--message', 'say two', '--planner-options', say('two'), '--message-id', 'say-two', '--json');
    const second = await sendTwo();
    expect(JSON.parse(second.stdout)).toMatchObject({ runNumber: 2, workflowId: `session-${id}/run-2`, messageId: 'say-two' });
    // Sent again with its id (a retry): the same run, nothing queued.
    expect(JSON.parse((await sendTwo()).stdout)).toMatchObject({ runNumber: 2, messageId: 'say-two' });
    const state = await waitFor('both runs of the session completed', async () => {
      const r = await agentctl('session', 'state', id, '--json');
      const report = JSON.parse(r.stdout) as { runs: { status: string }[] };
      return report.runs.length === 2 && report.runs.every((run) => run.status === 'completed') ? report : undefined;
    });
    expect(state).toMatchObject({ agent: 'scripted', open: true, historyLength: 4, runs: [{ final: 'one' }, { final: 'two' }] });
    // Its events say what became of each message.
    expect(lines((await agentctl('session', 'events', id)).stdout)).toEqual(expect.arrayContaining([expect.stringMatching(/^#\d+ \d\d:\d\d:\d\d message say-two repeated: answered with run #2$/)]));
    // Nothing waits now; a change of a message that does not wait names it.
    expect(JSON.parse((await agentctl('session', 'queue', id, '--json')).stdout)).toEqual([]);
    expect(await agentctl('session', 'queue', id, '--message-id', 'say-two', '--front')).toMatchObject({ code: 5, stderr: expect.stringContaining('message say-two does not wait in the queue: it is completed (run 2)') });
    const text = await agentctl('session', 'state', id);
    expect(lines(text.stdout)).toEqual(expect.arrayContaining(['history     4 messages', `  #2 session-${id}/run-2 completed: two`]));

    const listed = await waitFor('the session in list', async () => {
      const rows = JSON.parse((await agentctl('session', 'list', '--json')).stdout) as { sessionId: string }[];
      return rows.find((row) => row.sessionId === id);
    });
    expect(listed).toMatchObject({ agent: 'scripted', workflowStatus: 'RUNNING' });

    expect(await agentctl('session', 'close', id)).toMatchObject({ code: 0 });
    await expect(suite.env.client.workflow.getHandle(`session-${id}`).result()).resolves.toMatchObject({ open: false });
    const refused = await agentctl('session', 'send', id, '--message', 'late');
    expect(refused.code).toBe(4);
    // With --agent, a session that is not open yet is opened by the send.
    const fresh = `${id}-new`;
    expect(lines((await agentctl('session', 'send', fresh, '--agent', 'scripted', '--message', 'say three', '--planner-options', say('three'), '--follow')).stdout)).toContain('result: completed: three');
    await agentctl('session', 'close', fresh);

    // A closed session is not opened again by a send.
    expect(await agentctl('session', 'send', id, '--message', 'x', '--agent', 'scripted')).toMatchObject({ code: 4, stderr: expect.stringContaining(`session session-${id} is closed`) });
    expect(await agentctl('start', '--agent', 'scripted', '--message', 'hi', '--session-id', id)).toMatchObject({ code: 2, stderr: "agentctl: unknown option '--session-id'\n" });
  });

  it('start --tenant runs under the tenant; list --tenant and session list --tenant find only its runs and sessions', async () => {
    const tenant = `cli-${Date.now()}`;
    const script = JSON.stringify({ steps: [finalStep('tenant run')] });
    const started = await agentctl('start', '--agent', 'scripted', '--message', 'go', '--planner-options', script, '--tenant', tenant, '--json');
    expect(started).toMatchObject({ code: 0 });
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed' });
    expect(await suite.agents.status(workflowId)).toMatchObject({ tenant });
    const other = await suite.agents.start(scriptedInput([finalStep()]));
    const listed = await waitFor("the tenant's run listed", async () => {
      const r = await agentctl('list', '--tenant', tenant);
      return r.stdout.includes(workflowId) ? r : undefined;
    });
    expect(lines(listed.stdout)[0]).toMatch(/^RUN +AGENT +TENANT +STATUS +STARTED$/);
    expect(listed.stdout).not.toContain(other.workflowId);
    const sessionId = `cli-tenant-${Date.now()}`;
    expect(await agentctl('session', 'open', sessionId, '--agent', 'scripted', '--tenant', tenant)).toMatchObject({ code: 0 });
    const sessions = await waitFor("the tenant's session listed", async () => {
      const r = await agentctl('session', 'list', '--tenant', tenant, '--json');
      const entries = JSON.parse(r.stdout) as { sessionId: string; tenant?: string }[];
      return entries.length > 0 ? entries : undefined;
    });
    expect(sessions).toEqual([expect.objectContaining({ sessionId, tenant })]);
    expect(await agentctl('session', 'close', sessionId)).toMatchObject({ code: 0 });
  });

  it('start --id of a closed run exits 1 naming it and how to read it; --reuse-closed-id starts a new run; result --run-id reads the old one', async () => {
    const id = `agentctl-reuse-${Math.random().toString(36).slice(2, 10)}`;
    const start = (text: string, ...flags: string[]) => agentctl('start', '--agent', 'scripted', '--message', 'hi', '--planner-options', JSON.stringify({ steps: [finalStep(text)] }), '--id', id, ...flags);
    const first = await start('first', '--json');
    expect(first.code).toBe(0);
    const { runId } = JSON.parse(first.stdout) as { runId: string };
    expect(JSON.parse((await agentctl('result', id, '--json')).stdout)).toMatchObject({ final: { text: 'first' } });

    const refused = await start('second');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr.trim()).toMatch(new RegExp(`^agentctl: a closed run has id ${id} \\(run id ${runId}, completed\\)`));
    expect(refused.stderr).toContain(`agentctl result ${id} --run-id ${runId}`);
    expect(refused.stderr).toContain('--reuse-closed-id');

    expect((await start('second', '--reuse-closed-id')).code).toBe(0);
    expect(JSON.parse((await agentctl('result', id, '--json')).stdout)).toMatchObject({ final: { text: 'second' } });
    expect(JSON.parse((await agentctl('result', id, '--run-id', runId, '--json')).stdout)).toMatchObject({ final: { text: 'first' } });
  });

  it('start with a run input above the payload limit exits 2 naming the limit and the size, before sending', async () => {
    const file = join(testTempDir('agentctl-'), 'big.json');
    writeFileSync(file, JSON.stringify([finalStep('x'.repeat(600_000))]));
    const id = `cli-big-${suite.taskQueue}`;
    const r = await agentctl('start', '--agent', 'scripted', '--message', 'hi', '--script', file, '--id', id);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agentctl: the run input is 6\d{5} bytes of JSON; the limit is 524288 bytes \(512 KiB\) per payload\n$/);
    await expect(suite.env.client.workflow.getHandle(id).describe()).rejects.toThrow(/not found/);
  });

  it('start --script --follow --json streams the run as JSON lines and ends with the result', async () => {
    const file = join(testTempDir('agentctl-'), 'script.json');
    writeFileSync(file, JSON.stringify([callStep({ name: 'add', args: { a: 2, b: 3 } }), finalStep('sum done')]));
    const r = await agentctl('start', '--agent', 'scripted', '--message', 'add', '--script', file, '--id', `cli-follow-${suite.taskQueue}`, '--follow', '--json');
    expect(r).toMatchObject({ code: 0 });
    const out = lines(r.stdout).map((l) => JSON.parse(l) as unknown);
    expect(out[0]).toMatchObject({ workflowId: `cli-follow-${suite.taskQueue}` });
    const events = out.slice(1, -1).map((e) => runEventSchema.parse(e));
    expect(events.find((e) => e.type === 'final')).toMatchObject({ response: { text: 'sum done' } });
    const last = out.at(-1) as { result: unknown };
    expect(runResultSchema.parse(last.result)).toMatchObject({ status: 'completed', iterations: 1 });
  });

  it('pause waits for the safe point after a sleeping tool; list finds the paused run; resume lets it finish', async () => {
    // Several sleeps, so the pause lands in one of them however slowly the CLI starts; once
    // paused, blocking sleep lets the rest of the script finish at once.
    const nap = { name: 'sleep', args: { ms: 3_000 } };
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(nap), callStep(nap), callStep(nap), finalStep('slept')]));
    await toolCallStarted(workflowId);

    const paused = await agentctl('pause', workflowId, '--reason', 'inspect', '--json');
    expect(paused).toMatchObject({ code: 0 });
    expect(pauseResultSchema.parse(JSON.parse(paused.stdout))).toMatchObject({ status: 'paused', point: 'after_tool' });
    expect((await suite.agents.status(workflowId)).status).toBe('paused');

    // Visibility is eventually consistent: retry for a few seconds.
    const listed = await waitFor('the paused run in list', async () => {
      const r = await agentctl('list', '--agent', 'scripted', '--status', 'paused', '--json');
      expect(r).toMatchObject({ code: 0 });
      const rows = JSON.parse(r.stdout) as { workflowId: string; agent: string; status: string }[];
      return rows.find((row) => row.workflowId === workflowId);
    });
    expect(listed).toMatchObject({ agent: 'scripted', status: 'paused' });

    const block = await agentctl('block', workflowId, '--tool', 'sleep', '--reason', 'enough sleep');
    expect(block).toMatchObject({ code: 0, stdout: expect.stringMatching(/^intervention #\d+ block_tool applied on /) });

    const resumed = await agentctl('resume', workflowId, '--reason', 'looks fine');
    expect(resumed).toMatchObject({ code: 0, stdout: `resumed ${workflowId}: running\n` });
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'slept' } });
  });

  it('resume of a run that is not paused exits 5; kill ends a long sleep with status terminated', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'sleep', args: { ms: 600_000 } }), finalStep()]));
    await toolCallStarted(workflowId);

    const resume = await agentctl('resume', workflowId);
    expect(resume.code).toBe(5);
    expect(resume.stderr).toBe('agentctl: the run is not paused\n');

    const kill = await agentctl('kill', workflowId, '--reason', 'too slow', '--json');
    expect(kill).toMatchObject({ code: 0 });
    expect(runStatusReportSchema.parse(JSON.parse(kill.stdout)).status).toBe('terminated');
    expect((await suite.agents.result(workflowId)).status).toBe('terminated');
  });

  it("tenant quota sets a tenant's quota live, tenant show prints it with its usage, open runs and waiting starts; --reset goes back; bad values exit 2 naming the flag", async () => {
    const tenant = `cli-quota-${Date.now()}`;
    const missing = await agentctl('tenant', 'show', tenant);
    expect(missing).toMatchObject({ code: 3, stdout: '' });
    expect(missing.stderr.trim()).toBe(`agentctl: tenant ${tenant} has no account: no run of it has joined one (do the workers have a tenants file?) and no quota was set for it`);

    const set = await agentctl('tenant', 'quota', tenant, '--concurrent-runs', '1', '--starts-per-minute', '60', '--tokens-per-day', '100000', '--cost-per-day', '2.5', '--cost-per-month', '40', '--when-over', 'wait');
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(lines(set.stdout)[1]).toBe('quota       concurrentRuns 1 · startsPerMinute 60 · tokensPerDay 100000 · costPerDay 2.5 · costPerMonth 40 · whenOver wait (set live; the tenants file: none (not limited))');
    // A change keeps the fields it does not name.
    const changed = await agentctl('tenant', 'quota', tenant, '--cost-per-day', '0', '--json');
    expect(JSON.parse(changed.stdout)).toMatchObject({ tenant, quota: { concurrentRuns: 1, startsPerMinute: 60, tokensPerDay: 100000, costPerDay: 0, costPerMonth: 40, whenOver: 'wait' } });

    const sleeper = () => suite.agents.start({ ...scriptedInput([callStep({ name: 'sleep', args: { ms: 60_000 } }), finalStep()]), tenant });
    const first = await sleeper();
    await toolCallStarted(first.workflowId);
    const second = await sleeper();
    const shown = await waitFor('the second start waits', async () => {
      const r = await agentctl('tenant', 'show', tenant);
      return r.stdout.includes('waiting     1 start:') ? r : undefined;
    });
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.parse(today) + 86_400_000).toISOString();
    expect(lines(shown.stdout)).toEqual([
      `tenant      ${tenant}`,
      'quota       concurrentRuns 1 · startsPerMinute 60 · tokensPerDay 100000 · costPerDay 0 · costPerMonth 40 · whenOver wait (set live; the tenants file: none (not limited))',
      `today       ${today}: 0 of 100000 tokens, 0 of 0, 0 model calls`,
      `this month  ${today.slice(0, 7)}: 0 tokens, 0 of 40, 0 model calls`,
      'runs        1 open, 1 of 1 counting against concurrentRuns',
      `waiting     1 start: ${second.workflowId}`,
      // A money quota of 0 is spent already: the tenant's model calls are held until the day rolls over.
      `hold        model calls held until ${tomorrow}: tenant ${tenant} has used 0 of 0 in ${today} (costPerDay)`,
      'counted     1 admitted, 0 refused since the account began',
    ]);
    const json = await agentctl('tenant', 'show', tenant, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ tenant, running: 1, waiting: 1, queue: [second.workflowId] });

    const reset = await agentctl('tenant', 'quota', tenant, '--reset', '--json');
    expect(reset).toMatchObject({ code: 0 });
    expect(JSON.parse(reset.stdout)).not.toHaveProperty('override');
    // Back to the tenants file (no limit): the waiting start is let in.
    await waitFor('the second run admitted', async () => ((await suite.agents.status(second.workflowId)).waitingFor === undefined && (await suite.agents.events(second.workflowId)).events.some((e) => e.type === 'tool_call') ? true : undefined));
    for (const run of [first, second]) await suite.agents.kill(run.workflowId, { reason: 'done' });

    for (const [args, message] of [
      [['--concurrent-runs', '-1'], "--concurrent-runs must be an integer >= 0, got '-1'"],
      [['--starts-per-minute', 'many'], "--starts-per-minute must be an integer, got 'many'"],
      [['--cost-per-day', '1,5'], "--cost-per-day must be an amount >= 0 such as 2.50, got '1,5'"],
      [['--when-over', 'queue'], "--when-over must be wait or refuse, got 'queue'"],
      [['--reset', '--cost-per-month', '5'], '--reset goes back to the tenants file: give it alone, without other quota flags'],
      [[], 'name at least one quota (--concurrent-runs, --starts-per-minute, --tokens-per-day, --tokens-per-month, --cost-per-day, --cost-per-month, --when-over) or --reset'],
    ] as const) {
      expect(await agentctl('tenant', 'quota', tenant, ...args)).toMatchObject({ code: 2, stdout: '', stderr: `agentctl: ${message}\n` });
    }
    expect(await agentctl('tenant', 'quota', 'not a tenant', '--concurrent-runs', '1')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^agentctl: TENANT: /) });
    expect(await agentctl('tenant', 'show', tenant, '--concurrent-runs', '1')).toMatchObject({ code: 2, stderr: "agentctl: --concurrent-runs is not an option of 'tenant show' (use 'tenant quota')\n" });
    expect(await agentctl('tenant', 'list')).toMatchObject({ code: 2, stderr: "agentctl: unknown tenant subcommand 'list'; use one of show, quota\n" });
  });

  it('exits 3 for an unknown run and 2 for invalid JSON', async () => {
    const [missing, badJson] = await Promise.all([
      agentctlBinary('status', 'no-such-run'),
      agentctlBinary('edit-call', 'no-such-run', '--call', 'call_0_0', '--args', '{"ms":'),
    ]);
    expect(missing).toMatchObject({ code: 3, stdout: '', stderr: 'agentctl: no run with id no-such-run\n' });
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/^agentctl: --args: invalid JSON/);
  });
});
