/**
 * Every run kind is a first-class run: a session's runs and a sub-agent's runs carry AgentName
 * and mirror their status into AgentStatus, so a human finds them in `list --status awaiting`
 * (and every filter, the dashboard and /metrics, which read the same attributes) while they wait.
 * Every run kind of a tenant also carries its Temporal priority (fair dispatch).
 */
import { randomUUID } from 'node:crypto';
import Long from 'long';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { forkRun } from '../../worker/fork';
import { parseTenantsConfig } from '../../contracts/tenant-settings';
import { AgentClient, AgentClientError } from '../../client/agent-client';
import { agentTenantSearchAttribute, type RunInput } from '../../contracts';
import { listRuns, listSessions } from '../../client/run-list';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';
import { forkBundleOption } from '../support/test-env';

const suite = agentSuite('listed-kinds');

async function listedAwaiting(workflowId: string) {
  return waitFor(`${workflowId} listed as awaiting`, async () => {
    const { entries } = await listRuns(suite.agents, { status: 'awaiting' }, { limit: 200 });
    return entries.find((e) => e.workflowId === workflowId);
  });
}

async function memoOf(workflowId: string): Promise<Record<string, unknown> | undefined> {
  return (await suite.env.client.workflow.getHandle(workflowId).describe()).memo;
}

describe('session and sub-agent runs in listings', () => {
  it('a sub-agent run waiting for approval is listed as awaiting under its agent, with the memo of a plain run; its parent shows it awaiting', async () => {
    const steps: ScriptStep[] = [
      { type: 'tool_calls', calls: [{ id: 'pay', name: 'delegate', args: { task: 'pay acme', steps: [{ type: 'tool_calls', calls: [{ name: 'transfer', args: { to: 'acme', amount: 500 } }] }, { type: 'final', text: 'paid' }] } as never }] },
      { type: 'final', text: 'parent done' },
    ];
    const input: RunInput = { agent: 'delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps } };
    const { workflowId, runId } = await suite.agents.start(input);
    const childId = `sub-${runId}/pay`;
    expect(await listedAwaiting(childId)).toMatchObject({ agent: 'scripted', status: 'awaiting' });
    expect(await memoOf(childId)).toMatchObject({ agent: 'scripted', parentWorkflowId: workflowId, parentToolCallId: 'pay' });
    // The parent's status shows what its child waits for, not only that it runs.
    expect((await suite.agents.status(workflowId)).children).toMatchObject([{ workflowId: childId, status: 'awaiting' }]);
    await suite.agents.decideInTree(workflowId, ['pay'], { decision: 'approve', toolCallId: 'call_0_0' });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed' });
    const { entries } = await listRuns(suite.agents, { agent: 'scripted', status: 'completed' }, { limit: 200 });
    expect(entries.map((e) => e.workflowId)).toContain(childId);
  });

  it("a session's run waiting for approval is listed as awaiting under the session's agent", async () => {
    const sessionId = `listed-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] } });
    const record = await suite.agents.sendMessage(sessionId, {
      content: 'Add AAPL',
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] }, { type: 'final', text: 'added' }] },
    });
    expect(await listedAwaiting(record.workflowId)).toMatchObject({ agent: 'watchlist-scripted', status: 'awaiting' });
    expect(await memoOf(record.workflowId)).toMatchObject({ agent: "watchlist-scripted", sessionId: `session-${sessionId}` });
    await suite.agents.decide(record.workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    expect(await suite.agents.result(record.workflowId)).toMatchObject({ status: 'completed' });
    await suite.agents.closeSession(sessionId);
  });
});

describe('tenants of every run kind', () => {
  async function tenantOf(workflowId: string, runId?: string): Promise<{ attribute: string | undefined; memo: unknown }> {
    const description = await suite.env.client.workflow.getHandle(workflowId, runId).describe();
    return { attribute: description.typedSearchAttributes.get(agentTenantSearchAttribute), memo: description.memo?.tenant };
  }

  it("a sub-agent run takes its parent's tenant: in its status, AgentTenant and memo, and the tenant's listing", async () => {
    const tenant = `acme-${Date.now()}`;
    const steps: ScriptStep[] = [
      { type: 'tool_calls', calls: [{ id: 'pay', name: 'delegate', args: { task: 'pay acme', steps: [{ type: 'tool_calls', calls: [{ name: 'transfer', args: { to: 'acme', amount: 500 } }] }, { type: 'final', text: 'paid' }] } as never }] },
      { type: 'final', text: 'parent done' },
    ];
    const { workflowId, runId } = await suite.agents.start({ agent: 'delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps }, tenant });
    const childId = `sub-${runId}/pay`;
    await listedAwaiting(childId);
    expect(await suite.agents.status(workflowId)).toMatchObject({ tenant });
    expect(await suite.agents.status(childId)).toMatchObject({ tenant, parent: { workflowId } });
    expect(await tenantOf(workflowId)).toEqual({ attribute: tenant, memo: tenant });
    expect(await tenantOf(childId)).toEqual({ attribute: tenant, memo: tenant });
    const listed = await waitFor("the tenant's listing", async () => {
      const { entries } = await listRuns(suite.agents, { tenant }, { limit: 100 });
      return entries.length === 2 ? entries : undefined;
    });
    expect(listed.map((e) => [e.workflowId, e.tenant]).sort()).toEqual([[childId, tenant], [workflowId, tenant]].sort());
    await suite.agents.decideInTree(workflowId, ['pay'], { decision: 'approve', toolCallId: 'call_0_0' });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed' });
  });

  it("a session's runs take the session's tenant; a run keeps its tenant when it continues as new; runs without a tenant get none", async () => {
    const tenant = `globex-${Date.now()}`;
    const sessionId = `tenant-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] }, tenant });
    const record = await suite.agents.sendMessage(sessionId, { content: 'show', plannerOptions: { steps: [{ type: 'final', text: 'nothing' }] } });
    expect(await suite.agents.result(record.workflowId)).toMatchObject({ status: 'completed' });
    expect(await tenantOf(record.workflowId)).toEqual({ attribute: tenant, memo: tenant });
    expect(await tenantOf(`session-${sessionId}`)).toEqual({ attribute: tenant, memo: tenant });
    const sessions = await waitFor('the session in its tenant\'s listing', async () => {
      const { entries } = await listSessions(suite.agents, { limit: 10 }, { tenant });
      return entries.length > 0 ? entries : undefined;
    });
    expect(sessions).toEqual([expect.objectContaining({ sessionId, tenant })]);
    await suite.agents.closeSession(sessionId);

    // Continue-as-new after every turn: the last execution still has the tenant, in its input (status) and its attribute.
    const turn = callStep({ name: 'echo', args: { text: 'again' } });
    const { workflowId, runId: firstRunId } = await suite.agents.start(scriptedInput([turn, turn, turn, finalStep('long')], { policy: { continueAsNewAfterEvents: 1 }, tenant }));
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed' });
    const last = await suite.env.client.workflow.getHandle(workflowId).describe();
    expect(last.runId).not.toBe(firstRunId);
    expect(await tenantOf(workflowId)).toEqual({ attribute: tenant, memo: tenant });
    expect((await suite.agents.statusFromHistory(workflowId)).workflowStatus).toBe('COMPLETED');

    const plain = await suite.agents.start(scriptedInput([finalStep()]));
    expect(await suite.agents.result(plain.workflowId)).toMatchObject({ status: 'completed' });
    expect(await tenantOf(plain.workflowId)).toEqual({ attribute: undefined, memo: undefined });
  });

  it('a namespace without AgentTenant: a run without a tenant starts as before; a start with one is refused naming the attribute and how to register it', async () => {
    const connection = await Connection.connect({ address: suite.env.address });
    try {
      const namespace = `no-tenant-${randomUUID()}`;
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(3600) } });
      const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
      await waitFor('the namespace takes the attributes', async () =>
        connection.operatorService.addSearchAttributes({ namespace, searchAttributes: { AgentName: keyword, AgentStatus: keyword } }).then(
          () => connection.workflowService.countWorkflowExecutions({ namespace, query: "AgentName = 'none'" }).then(() => true),
          () => undefined,
        ),
      );
      const agents = new AgentClient(new Client({ connection, namespace }), `no-tenant-${Date.now()}`);
      const plain = await agents.start(scriptedInput([finalStep()]), { allowNoWorker: true });
      await agents.client.workflow.getHandle(plain.workflowId).terminate('test over');
      const refused = await agents.start(scriptedInput([finalStep()], { tenant: 'acme' }), { allowNoWorker: true }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(AgentClientError);
      expect(refused).toMatchObject({ type: 'invalid_input', message: expect.stringMatching(/AgentTenant.*temporal operator search-attribute create .*--name AgentTenant --type Keyword/) });
      const session = await agents.openSession(`no-tenant-${Date.now()}`, { agent: 'scripted', tenant: 'acme' }).catch((err: unknown) => err);
      expect(session).toMatchObject({ type: 'invalid_input', message: expect.stringMatching(/AgentTenant/) });
    } finally {
      await connection.close();
    }
  });
});

describe("fair dispatch: a tenant's runs carry its priority and fairness key", () => {
  const tenants = parseTenantsConfig({ default: { dispatch: { priority: 4 } }, tenants: { 'fair-acme': { dispatch: { priority: 2, weight: 3 } } } }, 'test');
  const acme = { priorityKey: 2, fairnessKey: 'fair-acme', fairnessWeight: 3 };
  /** A client of the deployment with that tenants file (as DURABLE_AGENTS_TENANTS_FILE gives AgentClient.fromEnv and the API server). */
  const client = () => new AgentClient(suite.env.client, suite.taskQueue, true, { tenants });
  /** The priority the server holds for an execution (its execution info: null when none was set). */
  async function priorityOf(workflowId: string, runId?: string) {
    const info = (await suite.env.client.workflow.getHandle(workflowId, runId).describe()).raw.workflowExecutionInfo;
    return info?.priority ? { ...info.priority } : null;
  }
  /**
   * What an execution's history records: the priority it started with, and the activities that
   * set one of their own. The server dispatches each activity task with the workflow's priority
   * merged under the activity's own (history service, processActivityTask), so none needs one.
   */
  async function historyPriorities(workflowId: string) {
    const { events } = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    const startedWith = events?.[0]?.workflowExecutionStartedEventAttributes?.priority;
    const activities = (events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : []));
    return {
      startedWith: startedWith ? { ...startedWith } : null,
      activities: activities.length,
      activitiesWithOwn: activities.filter((a) => a.priority && (a.priority.priorityKey || a.priority.fairnessKey || a.priority.fairnessWeight)).length,
    };
  }
  const echoes = (n: number, tail: ScriptStep[] = [finalStep('done')]): ScriptStep[] => [...Array.from({ length: n }, (_, i) => callStep({ name: 'echo', args: { text: `e${i}` } })), ...tail];

  it("a tenant's run, its sub-agent run and a session's runs carry the tenant's tier, weight and fairness key; their activities set none of their own (the server dispatches them with the run's)", async () => {
    const agents = client();
    const steps: ScriptStep[] = [
      { type: 'tool_calls', calls: [{ name: 'echo', args: { text: 'parent' } }, { id: 'sub', name: 'delegate', args: { task: 'echo', steps: echoes(1) } as never }] },
      finalStep('parent done'),
    ];
    const { workflowId, runId } = await agents.start({ agent: 'delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps }, tenant: 'fair-acme' });
    expect(await agents.result(workflowId)).toMatchObject({ status: 'completed' });
    const childId = `sub-${runId}/sub`;
    expect(await priorityOf(workflowId)).toEqual(acme);
    expect(await historyPriorities(workflowId)).toEqual({ startedWith: acme, activities: expect.any(Number), activitiesWithOwn: 0 });
    expect(await priorityOf(childId)).toEqual(acme);
    expect(await historyPriorities(childId)).toMatchObject({ startedWith: acme, activitiesWithOwn: 0 });

    const sessionId = `fair-${Date.now()}`;
    await agents.openSession(sessionId, { agent: 'scripted', tenant: 'fair-acme' });
    const record = await agents.sendMessage(sessionId, { content: 'echo', plannerOptions: { steps: echoes(1) } });
    expect(await agents.result(record.workflowId)).toMatchObject({ status: 'completed' });
    expect(await priorityOf(`session-${sessionId}`)).toEqual(acme);
    expect(await priorityOf(record.workflowId)).toEqual(acme);
    await agents.closeSession(sessionId);

    // A tenant without an entry of its own: the default's tier, its own fairness key.
    const other = await agents.start(scriptedInput(echoes(1), { tenant: 'fair-other' }));
    expect(await agents.result(other.workflowId)).toMatchObject({ status: 'completed' });
    expect(await priorityOf(other.workflowId)).toEqual({ priorityKey: 4, fairnessKey: 'fair-other' });
  });

  it('a continued, rewound and forked run keeps its priority; a run without a tenant has none', async () => {
    const agents = client();
    const { workflowId, runId: firstRunId } = await agents.start(scriptedInput(echoes(3), { policy: { continueAsNewAfterEvents: 1 }, tenant: 'fair-acme' }));
    expect(await agents.result(workflowId)).toMatchObject({ status: 'completed' });
    const last = await suite.env.client.workflow.getHandle(workflowId).describe();
    expect(last.runId).not.toBe(firstRunId);
    expect(await priorityOf(workflowId)).toEqual(acme);

    // The last execution's boundary (turns count across continue-as-new).
    const { runId: rewoundRunId } = await agents.rewind(workflowId, { toTurn: 3, reason: 'again' });
    expect(await agents.result(workflowId)).toMatchObject({ status: 'completed' });
    expect(await priorityOf(workflowId, rewoundRunId)).toEqual(acme);

    const fork = await forkRun(suite.env.client, workflowId, { toTurn: 3, ...(await forkBundleOption()) });
    expect(await agents.result(fork.workflowId)).toMatchObject({ status: 'completed' });
    expect(await priorityOf(fork.workflowId)).toEqual(acme);

    const plain = await agents.start(scriptedInput(echoes(1)));
    expect(await agents.result(plain.workflowId)).toMatchObject({ status: 'completed' });
    expect(await priorityOf(plain.workflowId)).toBeNull();
    expect(await historyPriorities(plain.workflowId)).toEqual({ startedWith: null, activities: 1, activitiesWithOwn: 0 });
  });
});
