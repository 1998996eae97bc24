/**
 * Quotas per tenant on the dev server: a start over its tenant's concurrency quota waits in line
 * (or is refused), a kill or a raise lets the next one in, model calls over a money quota wait
 * until it is raised, and the account's ledger sums what the runs' model calls reported, once.
 */
import { randomUUID } from 'node:crypto';
import type { RunEvent, RunInput } from '../../contracts';
import type { PriceTable } from '../../contracts/pricing';
import type { TenantsConfig } from '../../contracts/tenant-settings';
import { setTenantQuota, tenantAccount } from '../../client/tenant-accounts';
import { forkRun } from '../../worker/fork';
import { forkBundleOption } from '../support/test-env';
import { tenantAccountMessages, tenantAccountWorkflowId, type AccountUsage } from '../../contracts/tenant-account';
import { callTools, say, toolCall } from '../../testing/fake-model';
import { modelSuite } from '../support/model-suite';
import { callStep, finalStep, scriptedInput, sleepCall } from '../support/scripts';
import { waitFor } from '../support/wait';
import { allToolImplementations } from '../support/tools';

const id = randomUUID().slice(0, 8);
const tenant = { slots: `slots-${id}`, strict: `strict-${id}`, spend: `spend-${id}`, live: `live-${id}`, tree: `tree-${id}`, can: `can-${id}`, session: `session-${id}`, forked: `forked-${id}`, forker: `forker-${id}`, busy: `busy-${id}`, rate: `rate-${id}`, short: `short-${id}`, gone: `gone-${id}` };
const tenants: TenantsConfig = {
  default: { quota: {} },
  tenants: {
    [tenant.slots]: { quota: { concurrentRuns: 1 } },
    [tenant.strict]: { quota: { concurrentRuns: 1, whenOver: 'refuse' } },
    [tenant.spend]: { quota: { costPerDay: 0.1 } },
    [tenant.tree]: { quota: { concurrentRuns: 1 } },
    [tenant.can]: { quota: { concurrentRuns: 1 } },
    [tenant.session]: { quota: { concurrentRuns: 1 } },
  },
};
/** Example prices: the fake reports 20 prompt and 10 completion tokens a call, 0.04 USD. */
const prices: PriceTable = { currency: 'USD', models: { 'gpt-4o-mini': { inputPerMillion: 1_000, outputPerMillion: 2_000 } } };

const suite = modelSuite('tenant-quotas', { prices }, () => allToolImplementations(), { tenants });

beforeAll(() => {
  // Quotes until the run asks for its final answer.
  suite.fake.respondWith((request) => (request.body?.tools?.length ? callTools(toolCall('get_quote', { symbol: 'AAPL' })) : say('spent')));
});

/** A scripted run that waits for approval of a watchlist change: it stays open until decided or killed. */
function awaitingRun(of: string): RunInput {
  return scriptedInput([callStep({ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }), finalStep('added')], { agent: 'watchlist-scripted', sessionState: { watchlist: [] }, tenant: of });
}

/** A call of the watchlist's get_quote, with its own id. */
function quote(callId: string): { name: string; args: unknown; id: string } {
  return { id: callId, name: 'get_quote', args: { symbol: 'AAPL' } };
}

async function events(workflowId: string): Promise<RunEvent[]> {
  return (await suite.agents.events(workflowId, 0, 1000)).events;
}

async function statusIs(workflowId: string, status: string): Promise<void> {
  await waitFor(`${workflowId} ${status}`, async () => ((await suite.agents.status(workflowId).catch(() => undefined))?.status === status ? true : undefined));
}

async function waitsForQuota(workflowId: string) {
  return waitFor(`${workflowId} waits for its quota`, async () => {
    const { waitingFor } = await suite.agents.status(workflowId);
    return waitingFor?.kind === 'quota' ? waitingFor : undefined;
  });
}

describe('tenant quotas', () => {
  it('a start over the concurrency quota waits in line, visibly; a kill of the open run lets it in, and its wait is not charged', async () => {
    const first = await suite.agents.start(awaitingRun(tenant.slots));
    await statusIs(first.workflowId, 'awaiting');
    const second = await suite.agents.start(awaitingRun(tenant.slots));
    expect(await waitsForQuota(second.workflowId)).toMatchObject({ kind: 'quota', name: tenant.slots, errorType: 'quota_queued', error: `tenant ${tenant.slots} has 1 of 1 concurrent runs open (concurrentRuns)` });
    expect((await events(second.workflowId)).find((e) => e.type === 'quota_waiting')).toMatchObject({ tenant: tenant.slots, phase: 'start', position: 1 });
    expect(await tenantAccount(suite.agents, tenant.slots)).toMatchObject({ tenant: tenant.slots, quota: { concurrentRuns: 1 }, running: 1, waiting: 1, queue: [second.workflowId] });

    await suite.agents.kill(first.workflowId, { reason: 'make room' });
    await statusIs(second.workflowId, 'awaiting');
    const log = await events(second.workflowId);
    expect(log.find((e) => e.type === 'quota_cleared')).toMatchObject({ tenant: tenant.slots, phase: 'start' });
    expect(log.find((e) => e.type === 'budget_credited')).toMatchObject({ reason: `waited for a slot of tenant ${tenant.slots}` });
    expect((await suite.agents.status(second.workflowId)).waitingFor).toBeUndefined();
    await suite.agents.decide(second.workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    expect(await suite.agents.result(second.workflowId)).toMatchObject({ status: 'completed' });
    await waitFor('the account sees both runs closed', async () => ((await tenantAccount(suite.agents, tenant.slots))?.running === 0 ? true : undefined));
    expect(await tenantAccount(suite.agents, tenant.slots)).toMatchObject({ running: 0, waiting: 0, counters: { admitted: 2, refused: 0 } });
  });

  it('a start over a quota whose policy is refuse fails at once, naming the tenant and the quota', async () => {
    const first = await suite.agents.start(awaitingRun(tenant.strict));
    await statusIs(first.workflowId, 'awaiting');
    const second = await suite.agents.start(awaitingRun(tenant.strict));
    await expect(suite.agents.result(second.workflowId)).rejects.toMatchObject({ cause: { type: 'quota_refused' } });
    expect((await events(second.workflowId)).find((e) => e.type === 'run_failed')).toMatchObject({
      errorType: 'quota_refused',
      message: `tenant ${tenant.strict} has 1 of 1 concurrent runs open (concurrentRuns): the run was refused (whenOver: refuse)`,
    });
    await suite.agents.kill(first.workflowId, { reason: 'done' });
  });

  it('a run killed while it waits in line leaves the line; a quota raised live lets the waiting ones in', async () => {
    await setTenantQuota(suite.agents, tenant.live, { concurrentRuns: 1 }, 'ops');
    const first = await suite.agents.start(awaitingRun(tenant.live));
    await statusIs(first.workflowId, 'awaiting');
    const killed = await suite.agents.start(awaitingRun(tenant.live));
    const raised = await suite.agents.start(awaitingRun(tenant.live));
    await waitsForQuota(raised.workflowId);
    await suite.agents.kill(killed.workflowId, { reason: 'gave up waiting' });
    expect(await suite.agents.result(killed.workflowId)).toMatchObject({ status: 'terminated' });
    await waitFor('the killed run left the line', async () => ((await tenantAccount(suite.agents, tenant.live))?.queue.join() === raised.workflowId ? true : undefined));

    const view = await setTenantQuota(suite.agents, tenant.live, { concurrentRuns: 2 }, 'ops');
    expect(view).toMatchObject({ quota: { concurrentRuns: 2 }, override: { concurrentRuns: 2 } });
    await statusIs(raised.workflowId, 'awaiting');
    expect(await tenantAccount(suite.agents, tenant.live)).toMatchObject({ running: 2, waiting: 0 });
    await expect(setTenantQuota(suite.agents, tenant.live, { concurrentRuns: -1 })).rejects.toThrow(`quota of tenant ${tenant.live}: quota.concurrentRuns`);
    for (const run of [first, raised]) await suite.agents.kill(run.workflowId, { reason: 'done' });
  });

  it("model calls over the day's money quota wait until it is raised; the ledger sums the runs' reported costs once", async () => {
    const run = await suite.agents.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Quote AAPL until told to stop' }], sessionState: { watchlist: [] }, policy: { maxModelCalls: 5 }, tenant: tenant.spend });
    const wait = await waitsForQuota(run.workflowId);
    // Three calls of 0.04 reach 0.12 ≥ 0.1. The hold reaches the run as a signal after the third
    // call's usage reached the account: a call the run began meanwhile is made and charged.
    expect(wait).toMatchObject({ kind: 'quota', name: tenant.spend, errorType: 'quota_spent', error: expect.stringMatching(new RegExp(`^tenant ${tenant.spend} has used 0\\.(12|16) of 0\\.1 USD in ${new Date().toISOString().slice(0, 10)} \\(costPerDay\\)$`)) });
    const held = await tenantAccount(suite.agents, tenant.spend);
    const usedBefore = (await events(run.workflowId)).filter((e) => e.type === 'model_usage').length;
    expect(held).toMatchObject({ hold: { limit: 'costPerDay' }, day: { modelCalls: usedBefore, tokens: 30 * usedBefore, currency: 'USD' } });
    expect(held?.day.cost).toBeCloseTo(0.04 * usedBefore, 10);
    expect((await events(run.workflowId)).filter((e) => e.type === 'quota_waiting')).toEqual([expect.objectContaining({ phase: 'model', turn: usedBefore })]);

    await setTenantQuota(suite.agents, tenant.spend, { costPerDay: 10 });
    const result = await suite.agents.result(run.workflowId);
    expect(result.status).toBe('completed');
    const log = await events(run.workflowId);
    expect(log.find((e) => e.type === 'quota_cleared')).toMatchObject({ phase: 'model' });
    const reported = log.filter((e): e is Extract<RunEvent, { type: 'model_usage' }> => e.type === 'model_usage');
    const account = await waitFor('the ledger has every call', async () => {
      const view = await tenantAccount(suite.agents, tenant.spend);
      return view && view.day.modelCalls === reported.length ? view : undefined;
    });
    expect(account.day.tokens).toBe(reported.reduce((n, e) => n + e.tokens, 0));
    expect(account.day.cost).toBeCloseTo(reported.reduce((n, e) => n + (e.cost?.amount ?? 0), 0), 10);
    expect(account.month).toMatchObject({ modelCalls: account.day.modelCalls, tokens: account.day.tokens });
    expect(account.hold).toBeUndefined();
  });

  it("a run's own time budget still ends its wait for a spent money quota: the call fails quota_exceeded, naming the quota", async () => {
    await setTenantQuota(suite.agents, tenant.short, { costPerDay: 0.05 });
    const run = await suite.agents.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Quote AAPL until told to stop' }], sessionState: { watchlist: [] }, policy: { timeBudgetMs: 4_000 }, tenant: tenant.short });
    await waitsForQuota(run.workflowId);
    await expect(suite.agents.result(run.workflowId)).rejects.toMatchObject({ cause: { type: 'quota_exceeded' } });
    const failed = (await events(run.workflowId)).find((e) => e.type === 'run_failed');
    expect(failed).toMatchObject({ errorType: 'quota_exceeded', message: expect.stringMatching(new RegExp(`^tenant ${tenant.short} has used 0\\.\\d+ of 0\\.05 USD in .* \\(costPerDay\\), until .*; the run's time budget was spent waiting for it$`)) });
  });

  it("a sub-agent run is its tree's: it takes no slot of its own (the tree runs under a quota of one), and its tenant's account knows it while it runs", async () => {
    const steps = [callStep({ id: 'work', name: 'delegate', args: { task: 'wait a while', steps: [callStep(sleepCall('nap', 2_000)), finalStep('rested')] } }), finalStep('parent done')];
    const root = await suite.agents.start({ agent: 'delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps }, tenant: tenant.tree });
    await waitFor('the child joined the account', async () => ((await tenantAccount(suite.agents, tenant.tree))?.openRuns === 2 ? true : undefined));
    expect(await tenantAccount(suite.agents, tenant.tree)).toMatchObject({ running: 1, openRuns: 2, waiting: 0 });
    expect(await suite.agents.result(root.workflowId)).toMatchObject({ status: 'completed' });
    await waitFor('the tree left the account', async () => ((await tenantAccount(suite.agents, tenant.tree))?.openRuns === 0 ? true : undefined));
    expect((await tenantAccount(suite.agents, tenant.tree))?.counters).toMatchObject({ admitted: 1, refused: 0 });
  });

  it('a run that continues as new (here while it waits for approval) keeps its place without joining again; the run behind it waits until it ends', async () => {
    const long = await suite.agents.start(scriptedInput([callStep(quote('a')), callStep(quote('b')), callStep(quote('c')), callStep({ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }), finalStep('added')], {
      agent: 'watchlist-scripted',
      sessionState: { watchlist: [] },
      tenant: tenant.can,
      policy: { continueAsNewAfterEvents: 1 },
    }));
    await statusIs(long.workflowId, 'awaiting');
    const behind = await suite.agents.start(awaitingRun(tenant.can));
    await waitsForQuota(behind.workflowId);
    const executions = await suite.agents.exportExecutions(long.workflowId);
    expect(executions.length).toBeGreaterThan(2);
    expect(await tenantAccount(suite.agents, tenant.can)).toMatchObject({ running: 1, openRuns: 1, waiting: 1, counters: { admitted: 1 } });
    await suite.agents.decide(long.workflowId, { decision: 'approve', toolCallId: 'call_3_0' });
    expect(await suite.agents.result(long.workflowId)).toMatchObject({ status: 'completed' });
    await statusIs(behind.workflowId, 'awaiting');
    await suite.agents.kill(behind.workflowId, { reason: 'done' });
  });

  it("a session's runs are its tenant's: the second message's run waits for the first run's slot", async () => {
    const sessionId = `quota-session-${id}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] }, tenant: tenant.session });
    const first = await suite.agents.sendMessage(sessionId, { content: 'Add AAPL', plannerOptions: { steps: [callStep({ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }), finalStep('added')] } });
    await statusIs(first.workflowId, 'awaiting');
    const other = await suite.agents.start(awaitingRun(tenant.session));
    expect(await waitsForQuota(other.workflowId)).toMatchObject({ name: tenant.session });
    await suite.agents.decide(first.workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    expect(await suite.agents.result(first.workflowId)).toMatchObject({ status: 'completed' });
    await statusIs(other.workflowId, 'awaiting');
    await suite.agents.kill(other.workflowId, { reason: 'done' });
    await suite.agents.closeSession(sessionId);
  });

  it('a fork is charged to the tenant that forks: its model calls go to that ledger, not to the forked run\'s', async () => {
    const run = await suite.agents.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Quote AAPL until told to stop' }], sessionState: { watchlist: [] }, policy: { maxModelCalls: 3 }, tenant: tenant.forked });
    expect(await suite.agents.result(run.workflowId)).toMatchObject({ status: 'completed' });
    const calls = (await events(run.workflowId)).filter((e) => e.type === 'model_usage').length;
    const before = await waitFor('the forked run\'s calls are in its ledger', async () => {
      const view = await tenantAccount(suite.agents, tenant.forked);
      return view?.day.modelCalls === calls && view.openRuns === 0 ? view : undefined;
    });
    const fork = await forkRun(suite.env.client, run.workflowId, { toTurn: 1, tenant: tenant.forker, ...(await forkBundleOption()) });
    const forkResult = await suite.agents.result(fork.workflowId);
    expect(forkResult.status).toBe('completed');
    expect((await suite.agents.status(fork.workflowId)).tenant).toBe(tenant.forker);
    // The fork's log carries the events before its turn: its own calls are those of turn 1 on.
    const forkCalls = (await events(fork.workflowId)).filter((e) => e.type === 'model_usage' && e.turn >= 1).length;
    expect(forkCalls).toBeGreaterThan(0);
    const forker = await waitFor('the fork\'s calls are in the forker\'s ledger', async () => {
      const view = await tenantAccount(suite.agents, tenant.forker);
      return view?.day.modelCalls === forkCalls ? view : undefined;
    });
    expect(forker.day.tokens).toBe(30 * forkCalls);
    expect(await tenantAccount(suite.agents, tenant.forked)).toMatchObject({ day: { modelCalls: before.day.modelCalls, tokens: before.day.tokens } });
  });

  it('an account that only takes usage records (long runs, no new starts) still continues as new as its history grows, and loses no record across', async () => {
    // Signals alone never gave the account's loop a reason to look at its history: it grew past
    // its limit until Temporal's 10,000 signals per execution refused every further record.
    await setTenantQuota(suite.agents, tenant.busy, {});
    const handle = suite.agents.client.workflow.getHandle(tenantAccountWorkflowId(tenant.busy));
    const firstRunId = (await handle.describe()).runId;
    const records = 1_200;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, sender) => {
        const usage: AccountUsage = { workflowId: `busy-run-${sender}`, tokens: 3, modelCalls: 1, cost: 0.5, currency: 'USD' };
        while (next < records) {
          next += 1;
          await handle.signal(tenantAccountMessages.usage, usage);
        }
      }),
    );
    const view = await waitFor('the account applied every record', async () => {
      const seen = await tenantAccount(suite.agents, tenant.busy);
      return seen?.counters.usageRecords === records ? seen : undefined;
    });
    expect(view.day).toMatchObject({ tokens: 3 * records, modelCalls: records, cost: 0.5 * records, currency: 'USD' });
    expect((await handle.describe()).runId).not.toBe(firstRunId);
    const firstHistory = await suite.agents.client.workflow.getHandle(tenantAccountWorkflowId(tenant.busy), firstRunId).fetchHistory();
    expect(firstHistory.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
  });

  it('starts over the start-rate quota are admitted as the bucket refills, in order, without an event to wake the account', async () => {
    await setTenantQuota(suite.agents, tenant.rate, { startsPerMinute: 60 });
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await suite.agents.start(scriptedInput([finalStep(`run ${i}`)], { tenant: tenant.rate })));
    for (const run of runs) expect(await suite.agents.result(run.workflowId)).toMatchObject({ status: 'completed' });
    const waits = await Promise.all(runs.map(async (run) => (await events(run.workflowId)).find((e) => e.type === 'quota_waiting')));
    const waited = waits.filter((w) => w !== undefined);
    expect(waited.length).toBeGreaterThan(0);
    for (const w of waited) expect(w).toMatchObject({ phase: 'start', reason: expect.stringContaining('(startsPerMinute 60)') });
    expect(await tenantAccount(suite.agents, tenant.rate)).toMatchObject({ waiting: 0, counters: { admitted: 3 } });
  });

  it('usage records the account refused (it was gone) are sent again before the run leaves, and reach the account once it is back', async () => {
    const run = await suite.agents.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Quote AAPL until told to stop' }], sessionState: { watchlist: [] }, policy: { maxModelCalls: 3 }, breakpoints: [{ point: 'after_tool', once: true }], tenant: tenant.gone });
    await statusIs(run.workflowId, 'paused');
    await waitFor('the first record is in', async () => ((await tenantAccount(suite.agents, tenant.gone))?.day.modelCalls === 1 ? true : undefined));
    await suite.agents.client.workflow.getHandle(tenantAccountWorkflowId(tenant.gone)).terminate('an operator ended the account by mistake');
    await suite.agents.resume(run.workflowId);
    // The run's records of its later turns are refused until the account is back, after its final answer.
    await waitFor('the run answered', async () => ((await events(run.workflowId)).some((e) => e.type === 'final') ? true : undefined));
    await setTenantQuota(suite.agents, tenant.gone, {});
    expect(await suite.agents.result(run.workflowId)).toMatchObject({ status: 'completed' });
    const log = await events(run.workflowId);
    const later = log.filter((e): e is Extract<RunEvent, { type: 'model_usage' }> => e.type === 'model_usage' && e.turn >= 1);
    expect(later.length).toBeGreaterThan(0);
    const view = await waitFor('the later records reached the new account', async () => {
      const seen = await tenantAccount(suite.agents, tenant.gone);
      return seen?.day.modelCalls === later.length ? seen : undefined;
    });
    expect(view.day.tokens).toBe(later.reduce((n, e) => n + e.tokens, 0));
    expect(log.filter((e) => e.type === 'note' && e.note.labels?.kind === 'quota_usage_lost')).toEqual([]);
    const history = await suite.agents.client.workflow.getHandle(run.workflowId).fetchHistory();
    expect(history.events?.some((e) => e.signalExternalWorkflowExecutionFailedEventAttributes)).toBe(true);
  });

  it('a tenant without an account has none to show; a malformed tenant id is refused, naming it', async () => {
    expect(await tenantAccount(suite.agents, `nobody-${id}`)).toBeUndefined();
    await expect(tenantAccount(suite.agents, 'bad id!')).rejects.toThrow(/^tenant: /);
  });
});
