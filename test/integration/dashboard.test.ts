import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Worker } from '@temporalio/worker';
import { DurableAgentsPlugin } from '../../worker/plugin';
import { testAgents } from '../support/agents';
import { AgentClient } from '../../client/agent-client';
import { approvalDigest } from '../../contracts/approval-digest';
import { formatEvent } from '../../client/format';
import { checkWebhookSignature } from '../../server/webhooks/webhook-signature';
import type { RunEvent } from '../../contracts';
import { listRuns } from '../../client/run-list';
import { setTenantQuota } from '../../client/tenant-accounts';
import { startAgentServer, type AgentServer } from '../../server';
import { agentSuite } from '../support/agent-suite';
import { launchTestBrowser, type TestBrowser } from '../support/browser';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { createTestWorker, inProcessWorkerOptions, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { trackCalls, type TrackedAgents } from '../support/tracked-calls';
import { waitFor } from '../support/wait';

/**
 * The web dashboard in a real browser (Chromium through playwright-core) against a real
 * server, worker and Temporal dev server: sign in with a token, watch a run's events arrive,
 * approve a call, pause and resume, and see the runs list; and an approval link's page, opened
 * without a token, and its refusals.
 */
// A namespace of its own: the runs list shows every run of the namespace, and it counts the waiting ones.
// A tenants file on the worker: runs of a tenant join its account (the tenant page).
const suite = agentSuite('dashboard', undefined, { ownNamespace: true, plugin: { tenants: { default: { quota: {} } } } });
const adminToken = 'dashboard-admin-token-0123456789';
const viewerToken = 'dashboard-viewer-token-0123456789';
const publisherToken = 'dashboard-publisher-token-012345';
const screenshots = join(__dirname, '../../artifacts/screenshots');
/** The key that signs approval links (the second server of the link test has it too). */
const linkKey = { id: 'links-1', key: randomBytes(32) };

let server: AgentServer;
let browser: TestBrowser;
let page: Page;
let serverCalls: TrackedAgents;
/** A run waiting for approval on a task queue whose only worker stops as the file begins (see the no-worker test). */
const idle = { taskQueue: uniqueTaskQueue('dashboard-idle'), workflowId: '' };

/** A transfer above 100: the toolbox's `transfer` tool then needs a human to confirm it. */
const transferRun = () => scriptedInput([callStep({ name: 'transfer', args: { to: 'acct-7', amount: 500 } }), finalStep('transferred')]);

/** Waits until the run page's timeline shows an event of this type (it came over the live stream). */
async function seeEvent(type: string): Promise<void> {
  await page.locator(`[data-testid=timeline] [data-type=${type}]`).first().waitFor();
}

/** Waits until the run page's heading shows this status. */
async function seeStatus(status: string): Promise<void> {
  await page.locator(`h1 .status-${status}`).waitFor();
}

describe('the dashboard in a browser', () => {
  // Inside the describe block: they run after the file's worker is up and before it stops,
  // so no page is still reading from the server when the dev server goes away.
  beforeAll(async () => {
    const idleAgents = new AgentClient(suite.env.client, idle.taskQueue);
    const idleWorker = await createTestWorker(suite.env, idle.taskQueue, allToolImplementations());
    await idleWorker.runUntil(async () => {
      idle.workflowId = (await idleAgents.start(transferRun())).workflowId;
      await waitFor('the idle run to wait for approval', async () => ((await idleAgents.pendingInputs(idle.workflowId)).approvals.length > 0 ? true : undefined));
    });
    serverCalls = trackCalls(suite.agents);
    server = await startAgentServer({
      agents: serverCalls.agents,
      auth: { tokens: [{ name: 'alice', role: 'admin', token: adminToken }, { name: 'victor', role: 'viewer', token: viewerToken }, { name: 'worker', role: 'publisher', token: publisherToken }], localDev: false },
      approvalLinks: { keys: [linkKey] },
    });
    browser = await launchTestBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    // Waits for what the page shows are generous: an events query sent just as a run completes
    // can go unanswered until Temporal's 30 s query deadline before the live feed reads again.
    browser.context.setDefaultTimeout(60_000);
    await mkdir(screenshots, { recursive: true });
  });

  afterAll(async () => {
    // The page stops polling, the server stops, and its calls to Temporal finish, all before
    // the file's worker and dev server stop.
    await page?.goto('about:blank');
    await browser?.close();
    await server?.close();
    await serverCalls?.settled();
  });

  it('asks for a token, refuses a wrong one with the API message, and signs in with a good one', async () => {
    await page.goto(server.url);
    await page.locator('form input[name=token]').waitFor();

    await page.fill('input[name=token]', 'not-a-valid-token-at-all');
    await page.click('button[type=submit]');
    await expectText(page.locator('.login [role=alert]'), 'the bearer token is not valid');

    await page.fill('input[name=token]', adminToken);
    await page.click('button[type=submit]');
    await expectText(page.locator('[data-testid=who]'), 'alice · admin');
    expect(await page.locator('.banner').count()).toBe(0);
    expect(await page.evaluate("sessionStorage.getItem('durable-agents.token')")).toBe(adminToken);
  });

  it('needs no token in local-dev mode and says so in a banner', async () => {
    const localServer = await startAgentServer({ agents: serverCalls.agents, auth: { tokens: [], localDev: true } });
    const localPage = await browser.context.newPage();
    try {
      await localPage.goto(localServer.url);
      await expectText(localPage.locator('.banner'), 'local-dev mode');
      await expectText(localPage.locator('[data-testid=who]'), 'local-dev · admin');
      expect(await localPage.locator('input[name=token]').count()).toBe(0);
    } finally {
      await localPage.close();
      await localServer.close();
    }
  });

  it('shows a run waiting for approval live, approves it in the page and sees it complete', async () => {
    const { workflowId } = await suite.agents.start(transferRun());
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(workflowId)}`);

    await seeEvent('approval_requested');
    const card = page.locator('[data-testid=pending] [data-tool-call=call_0_0]');
    await expectText(card, 'transfer');
    await expectText(card, '"amount": 500');
    await page.screenshot({ path: join(screenshots, 'run-page-approval.png'), fullPage: true });
    await card.locator('button', { hasText: 'Approve' }).click();

    // Everything after the approval arrives over the live stream of the open page.
    await seeEvent('approval_decided');
    await seeEvent('final');
    await seeStatus('completed');
    await expectText(page.locator('[data-type=approval_decided]'), 'approve by alice');
    await expectText(page.locator('[data-type=tool_call]'), 'ok');
    // The call's result, folded: its size, then the value itself.
    const shownResult = page.locator('[data-type=tool_call] [data-testid=tool-result]');
    await expectText(shownResult, 'bytes');
    await shownResult.locator('summary').click();
    await expectText(shownResult, 'acct-7');
    await page.locator('[data-testid=pending]').waitFor({ state: 'detached' });
    await page.screenshot({ path: join(screenshots, 'run-page.png'), fullPage: true });

    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'transferred' } });
  });

  it("shows the whole tree of sub-agent runs on the top run's page, answers a grandchild's approval there and on its own page, and links each run up to the runs above it", async () => {
    // Three levels: nested-delegator → delegator (call `team`) → scripted (call `pay`), whose two transfers wait for people.
    const transfers = { type: 'tool_calls', calls: [{ name: 'transfer', args: { to: 'acct-9', amount: 800 } }, { name: 'transfer', args: { to: 'acct-8', amount: 600 } }] };
    const childSteps = [{ type: 'tool_calls', calls: [{ id: 'pay', name: 'delegate', args: { task: 'pay', steps: [transfers, finalStep('grandchild paid')] } }] }, finalStep('child done')];
    const { workflowId } = await suite.agents.start({
      agent: 'nested-delegator',
      messages: [{ role: 'user', content: 'pay through a team' }],
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ id: 'team', name: 'delegate_to_delegator', args: { task: 'pay', steps: childSteps } as never }] }, finalStep('parent done')] },
    });
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(workflowId)}`);
    const tree = page.locator('[data-testid=run-tree]');
    const child = tree.locator('[data-testid=tree-node][data-path="/team"]');
    // The grandchild is listed inside its parent's node: the tree nests as the runs do.
    const grandchild = child.locator('[data-testid=tree-node][data-path="/team/pay"]');
    await expectText(grandchild.locator('.node'), 'waiting for 2 approvals');
    await expectText(child.locator('.node').first(), 'delegator');
    await expectText(child.locator('.node').first(), 'started by call team');
    await expectText(grandchild.locator('.node'), 'started by call pay');
    await expectText(grandchild.locator('.node'), 'scripted');
    await expectText(page.locator('[data-testid=sub-agents-waiting]'), '1 sub-agent run waits');
    await page.locator('h1 .badge.waiting').waitFor();
    await page.screenshot({ path: join(screenshots, 'run-tree.png'), fullPage: true });

    // Down to the grandchild's own page: the breadcrumb links up to the top run and its parent.
    const childId = await child.getAttribute('data-workflow-id');
    await grandchild.locator('.node a').click();
    await expectText(page.locator('[data-testid=parent-link]'), childId ?? '?');
    await expectText(page.locator('[data-testid=breadcrumb] [data-testid=breadcrumb-run][data-path=""]'), workflowId);
    await expectText(page.locator('[data-testid=breadcrumb] [data-testid=breadcrumb-run][data-path="/team"]'), '/team');
    await expectText(page.locator('[data-testid=breadcrumb]'), '/team/pay');
    const own = page.locator('[data-testid=pending] [data-tool-call=call_0_0]');
    await own.locator('button', { hasText: 'Approve' }).click();
    await own.waitFor({ state: 'detached' });

    // Back up to the top run, where the grandchild's other call is answered in the tree.
    await page.locator('[data-testid=breadcrumb-run][data-path=""]').click();
    await expectText(grandchild.locator('.node'), 'waiting for approval');
    await grandchild.locator('[data-tool-call=call_0_1] button', { hasText: 'Approve' }).click();
    await seeStatus('completed');
    await expectText(grandchild.locator('.node'), 'completed');
    await expectText(grandchild.locator('.node'), 'took');
    expect((await suite.agents.result(workflowId)).final?.text).toBe('parent done');
  });

  it("gathers what people are asked in one inbox (a sub-agent run's approval under its path, a session's run), answers it in place; a parent's page shows it too", async () => {
    const childSteps = [callStep({ name: 'transfer', args: { to: 'acct-3', amount: 300 } }), finalStep('child paid')];
    const parent = await suite.agents.start({
      agent: 'delegator',
      messages: [{ role: 'user', content: 'pay through a sub-agent' }],
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ id: 'pay', name: 'delegate', args: { task: 'pay', steps: childSteps } as never }] }, finalStep('parent done')] },
    });
    const plain = await suite.agents.start(transferRun());
    // A session's run that waits: its own top run (its parent is the session, not a run).
    const sessionId = `inbox-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    const sessionRun = await suite.agents.sendMessage(sessionId, {
      content: 'pay',
      plannerOptions: { steps: [callStep({ name: 'transfer', args: { to: 'acct-5', amount: 700 } }), finalStep('session paid')] },
    });
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(parent.workflowId)}`);
    await expectText(page.locator('[data-testid=sub-agent-pending][data-path="/pay"]'), 'transfer');
    await page.locator('h1 .badge.waiting').waitFor();

    await page.goto(`${server.url}/#/inbox`);
    const parentTree = page.locator(`[data-testid=inbox-tree][data-workflow-id="${parent.workflowId}"]`);
    const plainTree = page.locator(`[data-testid=inbox-tree][data-workflow-id="${plain.workflowId}"]`);
    await expectText(parentTree.locator('[data-testid=inbox-entry][data-path="/pay"]'), 'transfer');
    await expectText(plainTree, 'transfer');
    await expectText(parentTree, '1 thing to answer');
    const sessionTree = page.locator(`[data-testid=inbox-tree][data-workflow-id="${sessionRun.workflowId}"]`);
    await expectText(sessionTree.locator('[data-testid=inbox-entry][data-path=""]'), 'acct-5');
    await page.screenshot({ path: join(screenshots, 'inbox.png'), fullPage: true });
    await parentTree.locator('button', { hasText: 'Approve' }).click();
    await plainTree.locator('button', { hasText: 'Approve' }).click();
    await sessionTree.locator('button', { hasText: 'Approve' }).click();
    expect((await suite.agents.result(sessionRun.workflowId)).final?.text).toBe('session paid');
    expect((await suite.agents.result(parent.workflowId)).final?.text).toBe('parent done');
    expect((await suite.agents.result(plain.workflowId)).status).toBe('completed');
    await parentTree.waitFor({ state: 'detached' });
    await plainTree.waitFor({ state: 'detached' });
  });

  it("streams a model call's text as its token deltas arrive, until the turn's plan lands", async () => {
    const { workflowId } = await suite.agents.start(transferRun());
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(workflowId)}`);
    await seeEvent('approval_requested');

    // What a worker's delta publisher posts while the model plans turn 1.
    const pieces = ['Checking ', 'the transfer', '…'];
    const deltas = pieces.map((text, seq) => ({ workflowId, activityId: 'model-1', attempt: 1, turn: 1, seq, kind: 'text', text, at: Date.now() }));
    const posted = await fetch(`${server.url}/api/deltas`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${publisherToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ deltas }),
    });
    expect(posted.status).toBe(204);
    await expectText(page.locator('[data-testid=streaming]'), 'Checking the transfer…');

    // The turn's plan is the call's answer: the preview gives way to the events.
    await page.locator('[data-testid=pending] button', { hasText: 'Approve' }).click();
    await seeEvent('final');
    await page.locator('[data-testid=streaming]').waitFor({ state: 'detached' });
  });

  it('pauses a run from the page and resumes it', async () => {
    // The run waits for an approval, so the pause is asked for while it is still open, whatever
    // the machine's speed; it takes effect at the next safe point, before the approved call runs.
    const { workflowId } = await suite.agents.start(transferRun());
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(workflowId)}`);
    await seeEvent('approval_requested');
    await page.locator('[data-testid=controls] button', { hasText: 'Pause' }).click();
    await seeEvent('pause_requested');
    await seeStatus('pausing');
    await page.locator('[data-testid=pending] button', { hasText: 'Approve' }).click();

    await seeEvent('paused');
    await seeStatus('paused');
    await expectText(page.locator('[data-type=paused]'), 'paused at before_tool');
    expect((await suite.agents.status(workflowId)).status).toBe('paused');
    expect(await page.locator('[data-type=tool_call]').count()).toBe(0);

    // While it is paused, raise a cap from the budget form.
    await page.selectOption('[data-testid=budget] select[name=cap]', 'maxIterations');
    await page.fill('[data-testid=budget] input[name=cap-value]', '40');
    await page.click('[data-testid=budget] button[type=submit]');
    await seeEvent('budget_changed');
    await expectText(page.locator('[data-testid=budget] tr', { hasText: 'iterations' }).first(), '/ 40');
    // Money next to tokens: a cost cap in decimals (this run's planner calls no model, so 0 spent).
    await page.selectOption('[data-testid=budget] select[name=cap]', 'maxCost');
    await page.fill('[data-testid=budget] input[name=cap-value]', '2.5');
    await page.click('[data-testid=budget] button[type=submit]');
    await expectText(page.locator('[data-testid=budget] tr[data-budget=cost]'), '0 / 2.5');
    expect((await suite.agents.status(workflowId)).cost.cost).toMatchObject({ used: 0, max: 2.5 });

    await page.locator('[data-testid=controls] button', { hasText: 'Resume' }).click();
    await seeEvent('resumed');
    await seeEvent('final');
    await seeStatus('completed');
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
  });

  it("shows the API's message when it refuses an edit, and rejects the call with a reason", async () => {
    const { workflowId } = await suite.agents.start(transferRun());
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(workflowId)}`);
    const card = page.locator('[data-testid=pending] [data-tool-call=call_0_0]');
    await card.locator('button', { hasText: 'Edit' }).click();
    await card.locator('textarea[name=args]').fill('{"to": "acct-7", "amount": "lots"}');
    await card.locator('button', { hasText: 'Run with these arguments' }).click();
    await expectText(card.locator('[role=alert]'), 'amount');
    expect((await suite.agents.pendingInputs(workflowId)).approvals).toHaveLength(1);

    await card.locator('button', { hasText: 'Cancel' }).click();
    await card.locator('input[name=reason]').fill('wrong account');
    await card.locator('button', { hasText: 'Reject' }).click();
    await seeEvent('final');
    await expectText(page.locator('[data-type=approval_decided]'), 'reject by alice (wrong account)');
    expect(await page.locator('[data-type=tool_call]').count()).toBe(0);
  });

  it('rewinds a waiting run from its checkpoints and follows the rewound run to the end', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text: 'first' } }), callStep({ name: 'transfer', args: { to: 'acct-9', amount: 900 } }), finalStep('rewound and done')]),
    );
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(workflowId)}`);
    await seeEvent('approval_requested');
    const turnOne = page.locator('[data-testid=checkpoints] tr', { has: page.locator('td.num', { hasText: /^1$/ }) });
    // A follower of the run's log says where the rewind replaced it: the marker must agree.
    const replacedFrom = new Promise<number>((resolve, reject) => {
      void (async () => {
        for await (const event of suite.agents.follow(workflowId, { onRewind: ({ fromSeq }) => resolve(fromSeq) })) void event;
      })().catch(reject);
    });
    page.once('dialog', (dialog) => void dialog.accept());
    await turnOne.locator('button', { hasText: 'Rewind' }).click();

    // The live feed says where the log was replaced; the page drops those events and shows the new ones.
    await page.locator('[data-testid=timeline][data-resets="1"]').waitFor();
    await page.locator('[data-testid=pending] [data-tool-call=call_1_0] button', { hasText: 'Approve' }).click();
    await seeEvent('final');
    await seeStatus('completed');
    await expectText(page.locator('[data-testid=rewind-marker]'), 'rewound here');
    expect((await suite.agents.result(workflowId)).final?.text).toBe('rewound and done');
    const shown = await page.locator('[data-testid=timeline] [data-seq]').evaluateAll((items) => items.map((i) => [Number(i.getAttribute('data-seq')), i.getAttribute('data-type')]));
    const { events } = await suite.agents.events(workflowId, 0, 1000);
    expect(shown).toEqual(events.filter((e) => e.type !== 'tool_result').map((e) => [e.seq, e.type]));

    // After a reload the page has seen no rewind: the marker comes from the run's history, with its
    // turn, before the first event that replaced the old ones.
    await page.reload();
    await seeStatus('completed');
    // The rewinds may be read before the events: the marker is placed once the events are shown.
    await seeEvent('final');
    const marker = page.locator('[data-testid=timeline][data-resets="0"] [data-testid=rewind-marker][data-turn="1"]');
    await expectText(marker, 'rewound here, to turn 1: the events from here on replaced those of the earlier execution');
    const fromSeq = await replacedFrom;
    const around = await marker.evaluate((li) => [li.previousElementSibling?.getAttribute('data-seq'), li.nextElementSibling?.getAttribute('data-seq')].map(Number));
    expect(around[0]).toBeLessThan(fromSeq);
    expect(around[1]).toBeGreaterThanOrEqual(fromSeq);
    await page.screenshot({ path: join(screenshots, 'run-page-rewound.png'), fullPage: true });

    // The list shows the rewound run once: its newest execution, and how many came before.
    await page.goto(`${server.url}/#/runs`);
    const rows = page.locator(`tr[data-run="${workflowId}"]`);
    await expectText(rows, 'and 1 earlier execution');
    expect(await rows.count()).toBe(1);
  });

  it('says so when a run does not exist', async () => {
    await page.goto(`${server.url}/#/runs/no-such-run`);
    await expectText(page.locator('[role=alert]').first(), 'no-such-run');
  });

  it('shows a session with its runs and their answers, and sends the next message', async () => {
    const sessionId = `dash-${Date.now()}`;
    const say = (text: string) => ({ plannerOptions: { steps: [{ type: 'final', text }] } });
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    await suite.agents.sendMessage(sessionId, { content: 'hello', ...say('hi there') });
    await page.goto(`${server.url}/#/sessions`);
    await page.locator(`a[href="#/sessions/${sessionId}"]`).click();
    await expectText(page.locator('.conversation li').first(), 'hi there');

    // The form sends plain text: the scripted agent's next run then has no script and fails,
    // which the session shows as that run's error.
    await page.fill('input[name=message]', 'and again');
    await page.click('form.inline button[type=submit]');
    const second = page.locator('.conversation li').nth(1);
    await expectText(second, 'failed');
    await expectText(second.locator('.error'), 'invalid planner options for agent scripted');
    expect(await page.locator('.conversation li').count()).toBe(2);
  });

  it("reaches a session from its run's page; shows its active run, its queue and its events live; moves a queued message to the front, edits it and drops another in the page", async () => {
    const sessionId = `dash-queue-${Date.now()}`;
    const session = suite.agents.session(sessionId);
    await session.open({ agent: 'scripted' });
    const say = (id: string) => ({ content: `say ${id}`, messageId: id, plannerOptions: { steps: [{ type: 'final', text: id }] } });
    const hold = await session.sendMessage({ content: 'hold', messageId: 'hold', plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 600_000 } }] }, finalStep('held')] } });
    await waitFor('the first run to run', async () => ((await session.status()).runs.some((r) => r.runNumber === 1 && r.status === 'running') ? true : undefined));
    for (const id of ['b', 'c']) await session.sendMessage(say(id));

    await page.goto(`${server.url}/#/runs/${encodeURIComponent(hold.workflowId)}`);
    await page.locator('[data-testid=session-link]').click();
    await expectText(page.locator('[data-testid=active-run]'), hold.workflowId);
    const queue = page.locator('[data-testid=queue]');
    const events = page.locator('[data-testid=session-events]');
    await expectText(events.locator('[data-type=message_taken]'), 'message c queued as run #3');
    expect(await queue.locator('li[data-message-id]').evaluateAll((items) => items.map((li) => li.getAttribute('data-message-id')))).toEqual(['b', 'c']);

    await queue.locator('li[data-message-id=c] button', { hasText: 'Move to front' }).click();
    await expectText(events.locator('[data-type=queue_edited]'), 'moved to front message c');
    await queue.locator('li[data-message-id]').first().filter({ hasText: 'say c' }).waitFor();
    await queue.locator('li[data-message-id=c] button', { hasText: 'Edit' }).click();
    await queue.locator('li[data-message-id=c] input[name=content]').fill('say C, edited');
    await queue.locator('li[data-message-id=c] button', { hasText: 'Save' }).click();
    await expectText(queue.locator('li[data-message-id=c]'), 'say C, edited');
    await queue.locator('li[data-message-id=b] button', { hasText: 'Drop' }).click();
    await expectText(events.locator('[data-type=queue_edited]'), 'dropped message b');
    await queue.locator('li[data-message-id=b]').waitFor({ state: 'detached' });
    await page.screenshot({ path: join(screenshots, 'session-page.png'), fullPage: true });

    // What the page did is what the session did.
    expect((await session.status()).queue).toEqual([expect.objectContaining({ messageId: 'c', content: 'say C, edited' })]);
    expect((await session.events()).events.filter((e) => e.type === 'queue_edited').map((e) => `${e.action} ${e.messageId}`)).toEqual(['front c', 'edit c', 'drop b']);
    expect((await session.status()).runs.find((r) => r.messageId === 'b')).toMatchObject({ status: 'dropped', error: 'dropped: dropped in the dashboard' });

    await suite.agents.kill(hold.workflowId, { reason: 'let the queue run' });
    await expectText(events.locator('[data-type=run_ended]'), 'run #3 ended completed');
    await session.close();
    await expectText(page.locator('.events .live'), 'ended: completed');
  });

  it("says when no worker polls a waiting run's task queue, and since when, on its page and in the inbox", async () => {
    const idleAgents = new AgentClient(suite.env.client, idle.taskQueue);
    const presence = await waitFor('no worker to have polled the idle queue for a while', async () => {
      const seen = await idleAgents.workerPresence(idle.workflowId);
      return seen.polled ? undefined : seen;
    }, 120_000);
    const since = `since ${presence.lastSeen?.slice(0, 19).replace('T', ' ')} UTC`;
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(idle.workflowId)}`);
    await seeStatus('awaiting');
    await expectText(page.locator('[data-testid=no-worker]'), `No worker polls task queue ${idle.taskQueue} ${since}`);
    await expectText(page.locator('[data-testid=run-meta]'), 'as its history records it');
    await page.locator('h1 .badge.waiting').waitFor();
    await page.screenshot({ path: join(screenshots, 'no-worker.png'), fullPage: true });

    await page.goto(`${server.url}/#/inbox`);
    const tree = page.locator(`[data-testid=inbox-tree][data-workflow-id="${idle.workflowId}"]`);
    await expectText(tree.locator('[data-testid=no-worker]'), `No worker polls task queue ${idle.taskQueue} ${since}`);
    await expectText(tree.locator('[data-testid=inbox-recorded]'), 'waits for a person');
    await expectText(tree, '1 thing to answer');

    // Ended, it no longer waits (the runs list below counts the runs that wait).
    await suite.env.client.workflow.getHandle(idle.workflowId).terminate('test over');
    await waitFor('the idle run listed as ended', async () => ((await listRuns(idleAgents, { status: 'awaiting' }, { limit: 100 })).entries.some((e) => e.workflowId === idle.workflowId && e.workflowStatus === 'RUNNING') ? undefined : true));
  });

  it('lists the runs with the waiting-for-human badge on the one that waits, and the tenant of a run that has one', async () => {
    const waiting = await suite.agents.start({ ...transferRun(), tenant: 'acme' });
    const quick = await suite.agents.start(scriptedInput([finalStep('quick')]));
    await page.goto(`${server.url}/#/runs`);

    const row = page.locator(`tr[data-run="${waiting.workflowId}"]`);
    await expectText(row, 'waiting for human');
    await expectText(row, 'scripted');
    await expectText(row.locator('[data-testid=run-tenant]'), 'tenant acme');
    await page.locator(`tr[data-run="${quick.workflowId}"]`).waitFor();
    expect(await page.locator(`tr[data-run="${quick.workflowId}"] [data-testid=run-tenant]`).count()).toBe(0);
    // Its turn and cost come from its status query.
    await expectText(row.locator('td.cost'), '0 tool calls');
    expect(await page.locator('tr[data-run] .badge.waiting').count()).toBe(1);
    await page.screenshot({ path: join(screenshots, 'runs-list.png'), fullPage: true });

    // Filtered by status: only completed runs are listed, so the waiting one is gone.
    await page.selectOption('select[name=status]', 'completed');
    await row.waitFor({ state: 'detached' });
    await page.locator('tr[data-run] .status-completed').first().waitFor();
    const shown = await page.locator('tr[data-run] .badge[class*=status-]').allTextContents();
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown)).toEqual(new Set(['completed']));

    // The run's page says whose run it is.
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(waiting.workflowId)}`);
    await expectText(page.locator('[data-testid=run-meta] [data-testid=run-tenant]'), 'tenant acme');
  });

  it("a tenant's page, reached from the tenant of a run and of the runs list: its quota, usage today and this month against it, open and waiting runs, the hold, and its runs", async () => {
    const tenant = `dash-${randomBytes(4).toString('hex')}`;
    // A money quota of 0 for the day is spent already: the tenant's model calls are held.
    await setTenantQuota(suite.agents, tenant, { concurrentRuns: 1, tokensPerDay: 1000, costPerDay: 0, costPerMonth: 5 }, 'ops');
    const open = await suite.agents.start({ ...transferRun(), tenant });
    await waitFor('the open run waits for approval', async () => ((await suite.agents.pendingInputs(open.workflowId)).approvals.length > 0 ? true : undefined));
    const waiting = await suite.agents.start({ ...transferRun(), tenant });
    await waitFor('the second start waits for a slot', async () => ((await suite.agents.status(waiting.workflowId)).waitingFor?.kind === 'quota' ? true : undefined));

    await page.goto(`${server.url}/#/runs/${encodeURIComponent(open.workflowId)}`);
    await page.locator('[data-testid=run-meta] [data-testid=run-tenant] a').click();
    await page.waitForURL(`**/#/tenants/${tenant}`);
    await expectText(page.locator('h1'), `Tenant ${tenant}`);
    await expectText(page.locator('[data-testid=tenant-quota]'), 'concurrentRuns 1 · tokensPerDay 1000 · costPerDay 0 · costPerMonth 5');
    await expectText(page.locator('[data-testid=tenant-quota]'), 'set live (the tenants file: none (not limited))');
    await expectText(page.locator('[data-testid=tenant-runs]'), '1 open run · 1 of 1 counting against concurrentRuns');
    await expectText(page.locator('[data-testid=tenant-hold]'), 'Model calls held until');
    await expectText(page.locator('[data-testid=tenant-waiting] h2'), 'Waiting for a slot (1)');
    const queued = page.locator(`[data-testid=tenant-waiting] a[href="#/runs/${encodeURIComponent(waiting.workflowId)}"]`);
    await queued.waitFor();
    await expectText(page.locator('[data-testid=usage-day] [data-usage=tokens]'), '0 / 1000');
    await expectText(page.locator('[data-testid=usage-day] [data-usage=cost]'), '0 / 0');
    await expectText(page.locator('[data-testid=usage-month] [data-usage=cost]'), '0 / 5');
    // A quota of 0 is spent: its meter is full; a period without a token quota has no meter.
    expect(await page.locator('[data-testid=usage-day] [data-usage=cost] meter').getAttribute('value')).toBe('1');
    expect(await page.locator('[data-testid=usage-month] [data-usage=tokens] meter').count()).toBe(0);
    // Its runs, through the runs list's tenant filter: these two, and no other tenant's.
    await expectText(page.locator('h2'), `Runs of tenant ${tenant}`);
    await page.locator(`tr[data-run="${open.workflowId}"]`).waitFor();
    await page.locator(`tr[data-run="${waiting.workflowId}"]`).waitFor();
    expect(await page.locator('tr[data-run]').count()).toBe(2);
    await page.screenshot({ path: join(screenshots, 'tenant-page.png'), fullPage: true });

    // The runs list links a run's tenant to its page too.
    await page.goto(`${server.url}/#/runs`);
    await page.locator(`tr[data-run="${open.workflowId}"] [data-testid=run-tenant] a`).click();
    await page.waitForURL(`**/#/tenants/${tenant}`);
    await page.locator('[data-testid=tenant-quota]').waitFor();

    // The waiting run's timeline says what it waits for.
    await page.goto(`${server.url}/#/runs/${encodeURIComponent(waiting.workflowId)}`);
    await expectText(page.locator('[data-testid=timeline] [data-type=quota_waiting]'), `waiting for tenant ${tenant}'s quota (to start, #1 in line): tenant ${tenant} has 1 of 1 concurrent runs open (concurrentRuns)`);

    // A tenant without an account: the API's message.
    await page.goto(`${server.url}/#/tenants/nobody-${tenant}`);
    await expectText(page.locator('[role=alert]'), `tenant "nobody-${tenant}" has no account`);
    for (const run of [open, waiting]) await suite.agents.kill(run.workflowId, { reason: 'done' });
  });

  it('lets a viewer watch a waiting run but not act on it', async () => {
    const { workflowId } = await suite.agents.start(transferRun());
    // A new tab has no token yet (sessionStorage is per tab).
    const viewerPage = await browser.context.newPage();
    try {
      await viewerPage.goto(`${server.url}/#/runs/${encodeURIComponent(workflowId)}`);
      await viewerPage.fill('input[name=token]', viewerToken);
      await viewerPage.click('button[type=submit]');
      await expectText(viewerPage.locator('[data-testid=who]'), 'victor · viewer');
      await expectText(viewerPage.locator('[data-testid=pending]'), 'Approvals and answers need the operator role');
      // A viewer is not the person the run waits for, and has nothing to edit or reject.
      expect(await viewerPage.locator('[data-testid=pending] h2').textContent()).toBe('Waiting for an operator');
      expect(await viewerPage.locator('[data-testid=pending] button', { hasText: 'Approve' }).isDisabled()).toBe(true);
      expect(await viewerPage.locator('[data-testid=pending] button', { hasText: 'Edit' }).isDisabled()).toBe(true);
      expect(await viewerPage.locator('[data-testid=pending] button', { hasText: 'Reject' }).isDisabled()).toBe(true);
      expect(await viewerPage.locator('[data-testid=pending] input[name=reason]').isDisabled()).toBe(true);
      expect(await viewerPage.locator('[data-testid=controls] button', { hasText: 'Pause' }).isDisabled()).toBe(true);
      expect(await viewerPage.locator('[data-testid=controls] button', { hasText: 'Kill' }).isDisabled()).toBe(true);
    } finally {
      await viewerPage.close();
    }
    await suite.agents.decide(workflowId, { decision: 'reject', toolCallId: 'call_0_0' });
  });

  it('an approval link: minted for two people, opened in the browser with the arguments shown as text, approved by one of them, then refused as used, also on another server; a link for a role edits the other call', async () => {
    const text = '<script>window.pwned = 1</script>';
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text } }, { name: 'echo', args: { text: 'second' } }), finalStep('echoed')], { confirmation: { tools: ['echo'] } }),
    );
    await waitFor('two calls waiting', async () => ((await suite.agents.pendingInputs(workflowId)).approvals.length === 2 ? true : undefined));
    const minted = await mintLink(workflowId, { toolCallId: 'call_0_0', approver: { names: ['bob', 'carol'] }, expiresIn: 3600 });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ digest: approvalDigest('echo', { text }), keyId: 'links-1', url: `${server.url}/approve/${minted.body.token}` });

    const linkPage = await browser.context.newPage();
    try {
      await linkPage.goto(minted.body.url);
      // The arguments are text on the page: the script in them is shown, not run.
      await expectText(linkPage.locator('[data-testid=args]'), text);
      expect(await linkPage.evaluate('window.pwned')).toBeUndefined();
      await expectText(linkPage.locator('[data-testid=call]'), 'echo (call_0_0)');
      await linkPage.screenshot({ path: join(screenshots, 'approval-link.png'), fullPage: true });
      await linkPage.selectOption('select[name=approver]', 'carol');
      await linkPage.locator('button', { hasText: /^Approve$/ }).click();
      await expectText(linkPage.locator('[data-testid=outcome]'), 'Call call_0_0 of run');
      await expectText(linkPage.locator('[data-testid=outcome]'), 'was approved by carol');
    } finally {
      await linkPage.close();
    }
    await waitFor('call_0_0 to run', async () => ((await events(workflowId)).some((e) => e.type === 'tool_result' && e.toolCallId === 'call_0_0') ? true : undefined));
    expect((await events(workflowId)).find((e) => e.type === 'approval_decided')).toMatchObject({ toolCallId: 'call_0_0', decision: 'approve', by: 'carol' });

    // Used once: this server remembers it; another server with the same key asks the run, which answers who decided it.
    expect(await openLink(minted.body.url)).toMatchObject({ status: 410, refusal: 'used', text: expect.stringContaining('this link was used at') });
    const other = await startAgentServer({ agents: suite.agents, auth: { tokens: [], localDev: true }, approvalLinks: { keys: [linkKey] } });
    try {
      const again = await answerLink(`${other.url}/approve/${minted.body.token}`, { action: 'approve', approver: 'bob' });
      expect(again).toMatchObject({ status: 409, refusal: 'already_decided', text: expect.stringContaining('call call_0_0 was decided already: approve by carol at ') });
    } finally {
      await other.close();
    }
    // A link for a role: anyone holding it answers with their name; edited arguments the tool does not take are refused by the run, and the link stays usable.
    const forRole = (await mintLink(workflowId, { toolCallId: 'call_0_1', approver: { role: 'on-call' } })).body as { url: string };
    expect(await answerLink(forRole.url, { action: 'edit', approver: 'dora', args: '{"text": 5}' })).toMatchObject({ status: 400, refusal: 'invalid_input', text: expect.stringContaining('arguments do not match echo') });
    expect(await answerLink(forRole.url, { action: 'edit', approver: 'dora', args: '{"text": "edited"}' })).toMatchObject({ status: 200, text: expect.stringContaining('was approved with edited arguments by dora (on-call)') });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'echoed' } });
    expect((await events(workflowId)).find((e) => e.type === 'approval_decided' && e.toolCallId === 'call_0_1')).toMatchObject({ decision: 'edit', by: 'dora (on-call)', updated: { args: { text: 'edited' } } });
  });

  it('an approval link rejects with a reason, replaces the call with another tool, and approves a tool for the rest of the run, each bound to its digest', async () => {
    const calls = ['rj', 'rp', 'al'].map((id) => ({ id, name: 'echo', args: { text: `from ${id}` } }));
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(...calls), callStep({ id: 'later', name: 'echo', args: { text: 'later' } }), finalStep('linked')], { confirmation: { tools: ['echo'] } }));
    await waitFor('three calls waiting', async () => ((await suite.agents.pendingInputs(workflowId)).approvals.length === 3 ? true : undefined));
    const link = async (toolCallId: string) => ((await mintLink(workflowId, { toolCallId, approver: { names: ['gil'] } })).body as { url: string }).url;
    const [reject, replace, always] = [await link('rj'), await link('rp'), await link('al')];
    expect((await openLink(replace)).text).toContain('name="action" value="replace"');
    expect(await answerLink(reject!, { action: 'reject', reason: 'not today' })).toMatchObject({ status: 200, text: expect.stringContaining('was rejected by gil') });
    expect(await answerLink(replace!, { action: 'replace', name: 'add', args: '{"a": 2, "b": 3}' })).toMatchObject({ status: 200, text: expect.stringContaining('was replaced with another call by gil') });
    expect(await answerLink(always!, { action: 'approve', always: 'yes' })).toMatchObject({ status: 200, text: expect.stringContaining('was approved for the rest of the run by gil') });
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'linked' } });
    const log = await events(workflowId);
    expect(log.filter((e) => e.type === 'approval_decided').map((e) => e.type === 'approval_decided' && [e.toolCallId, e.decision, e.by, e.digest, e.reason ?? e.updated?.name ?? e.always])).toEqual([
      ['rj', 'reject', 'gil', approvalDigest('echo', { text: 'from rj' }), 'not today'],
      ['rp', 'replace', 'gil', approvalDigest('echo', { text: 'from rp' }), 'add'],
      ['al', 'approve', 'gil', approvalDigest('echo', { text: 'from al' }), true],
    ]);
    // Approved for good through the link: the next echo asked no one.
    expect(log.filter((e) => e.type === 'approval_requested').map((e) => e.type === 'approval_requested' && e.toolCallId)).toEqual(['rj', 'rp', 'al']);
    expect(log.find((e) => e.type === 'tool_result' && e.toolCallId === 'rp')).toMatchObject({ name: 'add', status: 'ok' });
  });

  it('notifies the approvers through a webhook with a signed body when a call starts to wait, and logs the delivery; a receiver down for a minute blocks nothing: a call decided meanwhile is not notified, the other is once it is back', async () => {
    type Notice = { toolCallId: string; link: string; linkExpiresAt: string };
    const received: { notice: Notice; headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    /** Refused deliveries, by call. */
    const refused = new Map<string, number>();
    // A receiver that is down for a full minute from the first notice it sees.
    let downUntil: number | undefined;
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const notice = JSON.parse(body) as Notice;
        downUntil ??= Date.now() + 60_000;
        if (Date.now() < downUntil) {
          refused.set(notice.toolCallId, (refused.get(notice.toolCallId) ?? 0) + 1);
          res.writeHead(503).end();
          return;
        }
        received.push({ notice, headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const taskQueue = uniqueTaskQueue('dashboard-notify');
    const signingKey = { id: 'notices-1', key: randomBytes(32) };
    const approvalNotifier = { webhookUrl: `http://127.0.0.1:${port}/hooks/approvals`, links: { keys: [linkKey], publicUrl: server.url, approver: { names: ['erin'] } }, signingKey };
    const worker = await Worker.create({
      connection: suite.env.nativeConnection,
      namespace: suite.env.namespace ?? 'default',
      taskQueue,
      workflowBundle: await workflowBundleOption(),
      plugins: [new DurableAgentsPlugin({ agents: testAgents, tools: allToolImplementations(), runtime: {}, approvalNotifier })],
      ...inProcessWorkerOptions,
    });
    const agents = new AgentClient(suite.env.client, taskQueue);
    const args = { text: 'notify <erin>' };
    try {
      await worker.runUntil(async () => {
        const { workflowId } = await agents.start(
          scriptedInput([callStep({ name: 'echo', args: { text: 'decided through the API' } }, { name: 'echo', args }), finalStep('notified')], { confirmation: { tools: ['echo'], notify: true } }),
        );
        await waitFor('both notices refused', async () => (refused.size === 2 ? true : undefined));
        // Both calls wait for their decisions whatever becomes of the notices, and a person decides one through the API meanwhile.
        expect((await agents.pendingInputs(workflowId)).approvals.map((a) => a.toolCallId)).toEqual(['call_0_0', 'call_0_1']);
        const decided = await fetch(`${server.url}/api/runs/${encodeURIComponent(workflowId)}/decisions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ decision: 'approve', toolCallId: 'call_0_0' }),
        });
        expect(decided.status).toBe(200);
        await waitFor('call_0_0 to run', async () => ((await agents.events(workflowId, 0, 1000)).events.some((e) => e.type === 'tool_result' && e.toolCallId === 'call_0_0') ? true : undefined));
        expect(received).toEqual([]);

        // The receiver comes back after its minute: the notice of the call that still waits arrives, signed.
        const [delivery] = await waitFor('the notice after the outage', async () => (received.length > 0 ? received : undefined), 120_000);
        const notice = delivery!.notice;
        expect(notice).toMatchObject({
          type: 'approval_requested',
          run: workflowId,
          toolCallId: 'call_0_1',
          name: 'echo',
          args,
          digest: approvalDigest('echo', args),
          approver: { names: ['erin'] },
          link: expect.stringMatching(new RegExp(`^${server.url}/approve/`)),
          text: expect.stringContaining(`echo waits for a decision in run ${workflowId}`),
          blocks: expect.arrayContaining([{ type: 'actions', elements: [expect.objectContaining({ type: 'button', url: notice.link })] }]),
        });
        // What a receiver checks: the key id names the key, and the signature is over the timestamp and the exact body.
        const header = (name: string) => String(delivery!.headers[name.toLowerCase()]);
        expect(header('X-Durable-Agents-Key-Id')).toBe('notices-1');
        const check = { signature: header('X-Durable-Agents-Signature'), timestamp: header('X-Durable-Agents-Timestamp'), nowSeconds: Math.floor(Date.now() / 1000), toleranceSeconds: 300 };
        expect(checkWebhookSignature({ ...check, body: delivery!.body, secrets: [signingKey.key] })).toBeUndefined();
        expect(checkWebhookSignature({ ...check, body: delivery!.body.replace('erin', 'eve'), secrets: [signingKey.key] })).toBe('bad_signature');
        expect(checkWebhookSignature({ ...check, body: delivery!.body, secrets: [linkKey.key] })).toBe('bad_signature');
        // The run logs the delivery: the notifier (its origin, not its path) and the attempt that got through.
        const notified = await waitFor('approval_notified', async () => (await agents.events(workflowId, 0, 1000)).events.filter((e) => e.type === 'approval_notified'));
        expect(notified).toEqual([
          expect.objectContaining({ toolCallId: 'call_0_1', notifier: `webhook http://127.0.0.1:${port}`, attempt: (refused.get('call_0_1') ?? 0) + 1, status: 204, keyId: 'notices-1', linkExpiresAt: notice.linkExpiresAt }),
        ]);
        expect(formatEvent(notified[0]!)).toContain(`call_0_1: notice delivered by webhook http://127.0.0.1:${port} on attempt ${(refused.get('call_0_1') ?? 0) + 1} (204), signed with notices-1`);

        expect(await answerLink(notice.link, { action: 'approve' })).toMatchObject({ status: 200, text: expect.stringContaining('was approved by erin') });
        expect(await agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'notified' } });
        // The notice of the call decided meanwhile was withdrawn when it was decided: never delivered, its retries cancelled.
        expect(received.map((r) => r.notice.toolCallId)).toEqual(['call_0_1']);
        const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
        const notices = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'approvals.notify').map((e) => String(e.eventId));
        const cancelled = (history.events ?? []).flatMap((e) => (e.activityTaskCancelRequestedEventAttributes ? [String(e.activityTaskCancelRequestedEventAttributes.scheduledEventId)] : []));
        expect(notices).toHaveLength(2);
        expect(cancelled).toEqual([notices[0]]);
      });
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 180_000);

  it('an approval link refuses, with a page naming what was wrong: a tampered link, a foreign approver, a form of another site, an expired link, and a link minted before a rewind whose call now waits with other arguments', async () => {
    // A breakpoint after each plan lets an operator change the call before it asks for a decision.
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ id: 'pay', name: 'echo', args: { text: 'ten' } }), finalStep('done')], { confirmation: { tools: ['echo'] }, breakpoints: [{ point: 'after_llm' }] }),
    );
    await waitFor('the breakpoint', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    await suite.agents.resume(workflowId);
    const first = await waitFor('pay waiting', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    // Minting needs a waiting call, the operator role, and keys.
    expect(await mintLink(workflowId, { toolCallId: 'nope', approver: { names: ['bob'] } })).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_input', message: `body.toolCallId: call "nope" does not wait for a decision in run "${workflowId}"; waiting: "pay"` } },
    });
    expect(await mintLink(workflowId, { toolCallId: 'pay', approver: { names: ['bob'] } }, viewerToken)).toMatchObject({ status: 403 });
    const keyless = await startAgentServer({ agents: suite.agents, auth: { tokens: [], localDev: true }, approvalLinks: { keys: [] } });
    try {
      const off = await fetch(`${keyless.url}/api/runs/${encodeURIComponent(workflowId)}/approval-links`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ toolCallId: 'pay', approver: { names: ['bob'] } }) });
      expect(off.status).toBe(501);
      expect(await off.text()).toContain('approval links are off on this server: set DURABLE_AGENTS_APPROVAL_LINK_KEYS');
    } finally {
      await keyless.close();
    }

    const link = (await mintLink(workflowId, { toolCallId: 'pay', approver: { names: ['bob'] }, expiresIn: 3600 })).body as { url: string; token: string };
    const short = (await mintLink(workflowId, { toolCallId: 'pay', approver: { role: 'on-call' }, expiresIn: 1 })).body as { url: string };
    const [claims = '', signature = ''] = link.token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(claims, 'base64url').toString()), approver: { names: ['mallory'] } })).toString('base64url');
    expect(await openLink(`${server.url}/approve/${forged}.${signature}`)).toMatchObject({ status: 401, refusal: 'bad_signature', text: expect.stringContaining('This link was tampered with') });
    expect(await answerLink(`${server.url}/approve/${forged}.${signature}`, { action: 'approve', approver: 'mallory' })).toMatchObject({ status: 401, refusal: 'bad_signature' });
    expect(await openLink(`${server.url}/approve/not-a-link`)).toMatchObject({ status: 400, refusal: 'malformed' });
    expect(await answerLink(link.url, { action: 'approve', approver: 'mallory' })).toMatchObject({ status: 403, refusal: 'foreign_approver', text: expect.stringContaining('&#34;mallory&#34; may not answer this link; it is for &#34;bob&#34;') });
    // A form another site serves, posted from a browser there: refused before anything is read.
    expect((await answerLink(link.url, { action: 'approve' }, 'https://evil.example')).status).toBe(403);
    // Expired: its page says so once its second is over.
    await waitFor('the short link to expire', async () => ((await openLink(short.url)).status === 410 ? true : undefined));
    expect(await answerLink(short.url, { action: 'approve', approver: 'dora' })).toMatchObject({ status: 410, refusal: 'expired', text: expect.stringContaining('the link expired at') });

    // The run is rewound to before the call; an operator changes it at the breakpoint, and it asks again under the same id.
    await suite.agents.rewind(workflowId, { toTurn: 0, reason: 'ask for ten thousand' });
    await waitFor('the breakpoint of the rewound run', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    await suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'pay', args: { text: 'ten thousand' } });
    await suite.agents.intervene(workflowId, { kind: 'clear_breakpoint', point: 'after_llm' });
    await suite.agents.resume(workflowId);
    const now = await waitFor('pay asked again', async () => (await suite.agents.pendingInputs(workflowId)).approvals.find((a) => a.digest !== first.digest));
    expect(now).toMatchObject({ toolCallId: 'pay', args: { text: 'ten thousand' } });
    expect(await openLink(link.url)).toMatchObject({ status: 409, refusal: 'stale_digest', text: expect.stringContaining(`the link is for ${first.digest}, the call waiting is ${now.digest}`) });
    // The run itself refuses the link's decision: it is bound to the digest it was minted on.
    expect(await answerLink(link.url, { action: 'approve' })).toMatchObject({
      status: 409,
      refusal: 'stale_digest',
      text: expect.stringContaining(`the decision is for ${first.digest}, the call waiting is ${now.digest}`),
    });
    expect((await suite.agents.pendingInputs(workflowId)).approvals).toEqual([expect.objectContaining({ toolCallId: 'pay', digest: now.digest })]);
    await suite.agents.decide(workflowId, { decision: 'reject', toolCallId: 'pay' });
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
  });
});

async function events(workflowId: string): Promise<RunEvent[]> {
  return (await suite.agents.events(workflowId, 0, 1000)).events;
}

/** `POST /api/runs/:id/approval-links` with a token (the admin's by default). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function mintLink(workflowId: string, body: unknown, token = adminToken): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/runs/${encodeURIComponent(workflowId)}/approval-links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** A link page as a plain HTTP client sees it: status, the refusal it names (`data-refusal`), its HTML. */
async function linkReply(response: Response): Promise<{ status: number; refusal?: string; text: string }> {
  const text = await response.text();
  const refusal = /data-refusal="([a-z_]+)"/.exec(text)?.[1];
  return { status: response.status, ...(refusal ? { refusal } : {}), text };
}

async function openLink(url: string): Promise<{ status: number; refusal?: string; text: string }> {
  return linkReply(await fetch(url));
}

/** Posts the link page's form, from the page itself unless `origin` says another site. */
async function answerLink(url: string, form: Record<string, string>, origin = new URL(url).origin): Promise<{ status: number; refusal?: string; text: string }> {
  return linkReply(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: new URLSearchParams(form).toString() }));
}

/** Waits until the element contains the text (the page updates as the run goes on). */
async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor();
}
