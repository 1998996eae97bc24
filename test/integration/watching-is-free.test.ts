/**
 * Watching a run writes nothing to it. A run waiting for a human is followed through every kind
 * of follower at once (the API server's SSE events stream, its tree stream, the AI SDK UI
 * stream and the WebSocket, which the dashboard uses too; `AgentClient.follow`; `agentctl events
 * --follow`) for a stretch longer than several reads: its history length does not change. Then
 * the approval arrives and every follower sees the rest of the run. The worker announces the
 * run's new events to the API server (through its deltas publisher), which wakes the server's
 * follower of the run: also without a trace in history.
 */
import { Worker } from '@temporalio/worker';
import WebSocket from 'ws';
import { HttpDeltaPublisher, type DeltaSink } from '../../activities/model';
import type { EventsAnnouncement } from '../../contracts/deltas';
import type { RunEvent } from '../../contracts';
import { startAgentServer, type AgentServer } from '../../server';
import { DurableAgentsPlugin } from '../../worker/plugin';
import type { AgentSuite } from '../support/agent-suite';
import { testAgents } from '../support/agents';
import { startAgentctl } from '../support/agentctl-process';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { SseClient } from '../support/sse-client';
import { agentClient, createTestEnv, inProcessWorkerOptions, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { waitFor } from '../support/wait';

const tokens = { viewer: 'viewer-token-0123456789', operator: 'operator-token-0123456789', publisher: 'publisher-token-0123456789' };
let suite: AgentSuite;
let server: AgentServer;
let worker: Worker;
let running: Promise<void>;
/** Every announcement the worker made, in order. */
const announcements: EventsAnnouncement[] = [];

beforeAll(async () => {
  const env = await createTestEnv();
  const taskQueue = uniqueTaskQueue('watching');
  suite = { env, taskQueue, agents: agentClient(env, taskQueue) };
  server = await startAgentServer({
    agents: suite.agents,
    auth: {
      localDev: false,
      tokens: (['viewer', 'operator', 'publisher'] as const).map((role) => ({ name: role, role, token: tokens[role] })),
    },
  });
  // The worker a user runs beside API servers: its deltas publisher also carries the announcements
  // (counted on their way to it).
  const publisher = new HttpDeltaPublisher({ url: server.url, token: tokens.publisher });
  const deltas: DeltaSink = {
    publish: (delta) => publisher.publish(delta),
    flush: (timeoutMs) => publisher.flush(timeoutMs),
    announce: (announcement) => {
      announcements.push(announcement);
      publisher.announce(announcement);
    },
  };
  worker = await Worker.create({
    connection: env.nativeConnection,
    ...inProcessWorkerOptions,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundleOption(),
    plugins: [new DurableAgentsPlugin({ agents: testAgents, tools: allToolImplementations(), runtime: {}, model: { deltas } })],
  });
  running = worker.run();
});
afterAll(async () => {
  await server?.close();
  worker?.shutdown();
  await running;
  await suite?.env.teardown();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function historyLength(workflowId: string): Promise<number> {
  return (await suite.env.client.workflow.getHandle(workflowId).describe()).historyLength;
}

function webSocketEvents(workflowId: string): { events: RunEvent[]; opened: Promise<void>; close: () => void } {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/runs/${workflowId}/ws?access_token=${tokens.viewer}`);
  const events: RunEvent[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; event?: RunEvent };
    if (message.type === 'event' && message.event) events.push(message.event);
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { events, opened, close: () => ws.close() };
}

describe('watching is free', () => {
  it('a waiting run followed by every kind of follower keeps its history length; the followers still see the rest', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'watched' } }), finalStep('seen')], { confirmation: { all: true } }));
    const approval = await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);

    const sse = new SseClient(`${server.url}/api/runs/${workflowId}/events?access_token=${tokens.viewer}`);
    const tree = new SseClient(`${server.url}/api/runs/${workflowId}/tree/events?access_token=${tokens.viewer}`);
    const ui = new SseClient(`${server.url}/api/runs/${workflowId}/ui-stream?access_token=${tokens.viewer}`);
    const socket = webSocketEvents(workflowId);
    const followed: RunEvent[] = [];
    const following = (async () => {
      for await (const event of suite.agents.follow(workflowId)) followed.push(event);
    })();
    const agentctl = startAgentctl(suite, ['events', workflowId, '--follow']);
    await socket.opened;
    await Promise.all([
      sse.until('the approval request', () => sse.data<RunEvent>('run-event').some((e) => e.type === 'approval_requested')),
      tree.until('the approval request', () => tree.messages.some((m) => m.data.includes('approval_requested'))),
      ui.until('the approval request part', () => ui.messages.some((m) => m.data.includes('tool-approval-request'))),
      waitFor('the follower at the approval request', async () => followed.some((e) => e.type === 'approval_requested')),
      waitFor('the socket at the approval request', async () => socket.events.some((e) => e.type === 'approval_requested')),
      agentctl.printed(/approval_requested/),
    ]);

    // Several reads of every follower (each reads at least once a second while the run is quiet).
    const before = await historyLength(workflowId);
    await sleep(12_000);
    expect(await historyLength(workflowId)).toBe(before);

    const announced = server.live.stats().announcementsWaking;
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: approval.toolCallId });
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
    const all = (await suite.agents.events(workflowId, 0, 1000)).events.map((e) => e.seq);
    await Promise.all([sse.done, tree.done, ui.done, following]);
    expect(sse.data<RunEvent>('run-event').map((e) => e.seq)).toEqual(all);
    expect(followed.map((e) => e.seq)).toEqual(all);
    expect(ui.messages.at(-1)?.data).toBe('[DONE]');
    expect(tree.messages.some((m) => m.data.includes('"type":"final"'))).toBe(true);
    await waitFor('the socket at the run end', async () => socket.events.some((e) => e.type === 'final'));
    socket.close();
    const printed = await agentctl.exited;
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/final/);
    // The worker announced the approval's events, and the announcements woke the server's follower.
    expect(server.live.stats().announcementsWaking).toBeGreaterThan(announced);
  });

  it('a run of local tool calls announces its events once per workflow task, not once per call', async () => {
    // The calls run inside one workflow task (the worker runs each and activates the run again);
    // nobody can read the run until that task ends, so its end announces every event at once.
    const quick = (text: string) => callStep({ name: 'quick', args: { text } });
    const { workflowId } = await suite.agents.start(scriptedInput([quick('a'), quick('b'), quick('c'), quick('d'), quick('e'), finalStep('quickly')], { agent: 'faulty' }));
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
    const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    const tasks = (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).length;
    const markers = (history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
    expect(markers).toBe(5);
    const lastSeq = (await suite.agents.events(workflowId, 0, 1000)).events.at(-1)?.seq;
    // Sinks are called after the activation, so the last announcement may still be on its way.
    await waitFor('the announcement of the run end', async () => announcements.find((a) => a.workflowId === workflowId && a.lastSeq === lastSeq));
    const ofRun = announcements.filter((a) => a.workflowId === workflowId);
    expect(ofRun.length).toBeGreaterThan(0);
    expect(ofRun.length).toBeLessThanOrEqual(tasks);
    expect(ofRun.at(-1)?.lastSeq).toBe(lastSeq);
  });

  it('every follower reading the end of closed runs at once gets it', async () => {
    // A worker answers a query of a closed run by replaying it, and of several at once it can
    // lose one; the client asks again instead of failing after the server's 30 s.
    const runs = await Promise.all(Array.from({ length: 8 }, () => suite.agents.start(scriptedInput([finalStep('read at the end')]))));
    await Promise.all(runs.map(({ workflowId }) => suite.agents.result(workflowId)));
    const pages = await Promise.all(runs.flatMap(({ workflowId }) => Array.from({ length: 6 }, () => suite.agents.events(workflowId))));
    for (const page of pages) expect(page.events.map((e) => e.type)).toContain('final');
  });
});
