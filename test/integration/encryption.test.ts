import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { AgentClient } from '../../client/agent-client';
import { listRuns } from '../../client/run-list';
import { EncryptionCodec, dataConverterFromEnv, encryptedEncoding, encryptionKeyIdKey, type EncryptionKeys } from '../../config/encryption';
import { forkRun } from '../../worker/fork';
import { DurableAgentsPlugin } from '../../worker/plugin';
import { testAgents } from '../support/agents';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { createTestEnv, forkBundleOption, inProcessWorkerOptions, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { waitFor } from '../support/wait';
import { approvalDigest } from '../../contracts/approval-digest';
import { startAgentServer } from '../../server';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateRuns } from '../../testing/eval';
import { agentModuleForTests, runAgentctl } from '../support/agentctl-eval';
import { testWorkflowCodeArgs } from '../support/agentctl-cli';
import { testTempDir } from '../support/temp-dir';
import type { TenantsConfig } from '../../contracts/tenant-settings';
import { setTenantQuota, tenantAccount } from '../../client/tenant-accounts';
import { tenantAccountWorkflowId } from '../../contracts/tenant-account';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const oldKey = { id: 'k-2026-10', key: randomBytes(32) };
const newKey = { id: 'k-2026-11', key: randomBytes(32) };

/** A worker and a client that share the keys (the first encrypts), as a deployment would. */
async function encrypted(taskQueue: string, keys: EncryptionKeys, tenants?: TenantsConfig): Promise<{ worker: Worker; agents: AgentClient }> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    ...inProcessWorkerOptions,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundleOption(),
    plugins: [new DurableAgentsPlugin({ agents: testAgents, tools: allToolImplementations(), runtime: {}, encryption: keys, ...(tenants ? { tenants } : {}) })],
  });
  const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default', dataConverter: { payloadCodecs: [new EncryptionCodec(keys)] } });
  return { worker, agents: new AgentClient(client, taskQueue, false) };
}

/** Every byte the server stores for a run, read without any codec. */
async function storedHistory(workflowId: string, runId?: string): Promise<{ bytes: Buffer; payloads: { path: string; payload: temporal.api.common.v1.IPayload }[] }> {
  const execution = runId ? { workflowId, runId } : { workflowId };
  const response = await env.connection.workflowService.getWorkflowExecutionHistory({ namespace: env.namespace ?? 'default', execution });
  const history = temporal.api.history.v1.History.create({ events: response.history?.events ?? [] });
  const payloads: { path: string; payload: temporal.api.common.v1.IPayload }[] = [];
  const collect = (value: unknown, path: string): void => {
    if (!value || typeof value !== 'object') return;
    if ('data' in value && 'metadata' in value) payloads.push({ path, payload: value as temporal.api.common.v1.IPayload });
    for (const [key, child] of Object.entries(value)) collect(child, `${path}.${key}`);
  };
  collect(response.history?.events, '');
  return { bytes: Buffer.from(temporal.api.history.v1.History.encode(history).finish()), payloads };
}

const secrets = { message: 'SECRET-MESSAGE-7f3a', arg: 'SECRET-ARGUMENT-91bc', final: 'SECRET-ANSWER-c0de', state: 'SECRET-STATE-5e11' };

function secretRun(): ReturnType<typeof scriptedInput> {
  return scriptedInput([callStep({ name: 'echo', args: { text: secrets.arg } }), finalStep(secrets.final)], {
    messages: [{ role: 'user', content: secrets.message }],
    sessionState: { note: secrets.state },
  });
}

describe('payload encryption (AES-256-GCM codec)', () => {
  it('the server stores no plaintext of messages, tool arguments and results, answers or session state; clients with the key read everything', async () => {
    const taskQueue = uniqueTaskQueue('encrypted');
    const { worker, agents } = await encrypted(taskQueue, [oldKey]);
    const { workflowId } = await worker.runUntil(async () => {
      const started = await agents.start(secretRun());
      const result = await agents.result(started.workflowId);
      expect(result).toMatchObject({ status: 'completed', final: { text: secrets.final }, sessionState: { note: secrets.state } });
      // Queries and the event log decrypt too.
      const { events } = await agents.events(started.workflowId, 0, 1000);
      expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ args: { text: secrets.arg } });
      return started;
    });

    const { bytes, payloads } = await storedHistory(workflowId);
    for (const secret of Object.values(secrets)) expect(bytes.includes(secret)).toBe(false);
    // Plaintext stays only where Temporal needs to read it: search attributes (indexed by the
    // server: agent name, status, patch ids) and the SDK's patch markers (patch ids).
    const plain = payloads.filter(({ payload }) => Buffer.from(payload.metadata?.encoding ?? []).toString() !== encryptedEncoding).map(({ path }) => path);
    expect(plain.filter((path) => !/searchAttributes\.indexedFields\.|markerRecordedEventAttributes\.details\.patch-data\./.test(path))).toEqual([]);
    expect(payloads.length - plain.length).toBeGreaterThan(5);
    expect(payloads.some(({ path }) => path.includes('upsertedMemo'))).toBe(true);

    // The official CLI, an outside client without the key, sees ciphertext only.
    const shown = execFileSync(process.env.TEMPORAL_CLI_PATH ?? 'temporal', ['workflow', 'show', '--workflow-id', workflowId, '--address', env.address, '--namespace', env.namespace ?? 'default', '--output', 'json'], { encoding: 'utf8' });
    for (const secret of Object.values(secrets)) {
      expect(shown.includes(secret)).toBe(false);
      expect(shown.includes(Buffer.from(secret).toString('base64').slice(0, 16))).toBe(false);
    }

    // Checkpoints (turn boundaries) read through the codec as well.
    expect((await agents.checkpoints(workflowId)).map((c) => c.turn)).toEqual([0, 1]);
    expect((await agents.statusFromHistory(workflowId)).turns).toBe(2);

    // A fork replays the decrypted history and starts from the state after turn 1.
    const fork = await forkRun(agents.client, workflowId, { toTurn: 1, ...(await forkBundleOption()) });
    const forkWorker = (await encrypted(taskQueue, [oldKey])).worker;
    await forkWorker.runUntil(async () => {
      expect(await agents.result(fork.workflowId)).toMatchObject({ status: 'completed', final: { text: secrets.final }, sessionState: { note: secrets.state } });
    });
    for (const secret of Object.values(secrets)) expect((await storedHistory(fork.workflowId)).bytes.includes(secret)).toBe(false);
  });

  it('a run that continues as new while it waits for an approval stays encrypted in every execution and carries its secrets to the next', async () => {
    const taskQueue = uniqueTaskQueue('encrypted-waiting');
    const { worker, agents } = await encrypted(taskQueue, [oldKey]);
    await worker.runUntil(async () => {
      const input = scriptedInput([callStep({ name: 'echo', args: { text: secrets.arg } }), finalStep(secrets.final)], {
        messages: [{ role: 'user', content: secrets.message }],
        sessionState: { note: secrets.state },
        confirmation: { all: true },
        policy: { continueAsNewAfterUpdates: 3 },
      });
      const { workflowId, runId } = await agents.start(input);
      await waitFor('the approval request', async () => (await agents.pendingInputs(workflowId)).approvals[0]);
      // Operators' updates while the run waits: past its bound, it continues as new mid-turn.
      for (let i = 0; i < 4; i++) await agents.setBudget(workflowId, { maxIterations: 25 + i });
      const handle = agents.client.workflow.getHandle(workflowId);
      const continued = await waitFor('the run to continue as new while it waits', async () => {
        const { runId: current } = await handle.describe();
        return current !== runId ? current : undefined;
      });
      // The carried approval, read through the codec in the new execution.
      const approval = await waitFor('the carried approval', async () => (await agents.pendingInputs(workflowId)).approvals[0]);
      expect(approval).toMatchObject({ name: 'echo', args: { text: secrets.arg } });
      await agents.decide(workflowId, { decision: 'approve', toolCallId: approval.toolCallId });
      expect(await agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: secrets.final }, sessionState: { note: secrets.state } });
      expect((await agents.checkpoints(workflowId)).map((c) => c.turn)).toContain(1);
      // Both executions, the carried open turn in the second one's start included, hold no plaintext.
      for (const execution of [runId, continued]) {
        const { bytes } = await storedHistory(workflowId, execution);
        for (const secret of Object.values(secrets)) expect(bytes.includes(secret)).toBe(false);
      }
    });
  });

  it("an approval of an encrypted run: its digest is of the plaintext arguments, its link page shows them through the server's codec and decides the call, and no plaintext is stored; a server without the key refuses the page naming it", async () => {
    const taskQueue = uniqueTaskQueue('encrypted-link');
    const { worker, agents } = await encrypted(taskQueue, [oldKey]);
    const linkKeys = { keys: [{ id: 'enc-links', key: randomBytes(32) }] };
    await worker.runUntil(async () => {
      const args = { text: secrets.arg };
      const { workflowId } = await agents.start(scriptedInput([callStep({ name: 'echo', args }), finalStep(secrets.final)], { confirmation: { tools: ['echo'] } }));
      const approval = await waitFor('the approval request', async () => (await agents.pendingInputs(workflowId)).approvals[0]);
      // The workflow sees decoded arguments: the digest a client computes from what it reads is the run's.
      expect(approval).toMatchObject({ args, digest: approvalDigest('echo', args) });

      const server = await startAgentServer({ agents, auth: { tokens: [], localDev: true }, approvalLinks: linkKeys });
      const keyless = await startAgentServer({
        agents: new AgentClient(new Client({ connection: env.connection, namespace: env.namespace ?? 'default' }), taskQueue, false),
        auth: { tokens: [], localDev: true },
        approvalLinks: linkKeys,
      });
      try {
        const minted = await fetch(`${server.url}/api/runs/${encodeURIComponent(workflowId)}/approval-links`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ toolCallId: approval.toolCallId, approver: { names: ['ana'] } }),
        });
        expect(minted.status).toBe(201);
        const link = (await minted.json()) as { url: string; token: string; digest: string };
        expect(link.digest).toBe(approval.digest);
        // The token names the call and its digest, never the arguments.
        expect(Buffer.from(link.token.split('.')[0] ?? '', 'base64url').toString()).not.toContain(secrets.arg);
        const page = await fetch(link.url);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain(secrets.arg);

        // A server without the run's key can neither show the run nor take its answer: its page says so, naming the key, and nothing is decided.
        const elsewhere = await fetch(`${keyless.url}/approve/${link.token}`);
        const refusal = await elsewhere.text();
        expect({ status: elsewhere.status, refusal: /data-refusal="([a-z_]+)"/.exec(refusal)?.[1], leaks: refusal.includes(secrets.arg) }).toEqual({ status: 500, refusal: 'undecodable', leaks: false });
        expect(refusal).toContain(`is encrypted with key ${oldKey.id} and this server has no encryption keys: set DURABLE_AGENTS_ENCRYPTION_KEYS`);
        const keylessAnswer = await fetch(`${keyless.url}/approve/${link.token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ action: 'edit', args: JSON.stringify({ text: 'PLAIN-EDIT' }) }).toString() });
        expect({ status: keylessAnswer.status, refusal: /data-refusal="([a-z_]+)"/.exec(await keylessAnswer.text())?.[1] }).toEqual({ status: 500, refusal: 'undecodable' });
        // One with other keys names the one it lacks.
        const rotated = await startAgentServer({
          agents: new AgentClient(new Client({ connection: env.connection, namespace: env.namespace ?? 'default', dataConverter: { payloadCodecs: [new EncryptionCodec([newKey])] } }), taskQueue, false),
          auth: { tokens: [], localDev: true },
          approvalLinks: linkKeys,
        });
        try {
          const other = await fetch(`${rotated.url}/approve/${link.token}`);
          expect(other.status).toBe(500);
          expect(await other.text()).toContain(`is encrypted with key ${oldKey.id}, which this server does not have: add it to this server&#39;s DURABLE_AGENTS_ENCRYPTION_KEYS`);
        } finally {
          await rotated.close();
        }
        expect((await agents.pendingInputs(workflowId)).approvals).toEqual([expect.objectContaining({ toolCallId: approval.toolCallId })]);

        const answered = await fetch(link.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ action: 'approve' }).toString() });
        expect(answered.status).toBe(200);
      } finally {
        await server.close();
        await keyless.close();
      }
      expect(await agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: secrets.final } });
      const decided = (await agents.events(workflowId, 0, 200)).events.find((e) => e.type === 'approval_decided');
      expect(decided).toMatchObject({ by: 'ana', digest: approval.digest });
      const { bytes } = await storedHistory(workflowId);
      expect(bytes.includes(secrets.arg)).toBe(false);
      expect(bytes.includes(secrets.final)).toBe(false);
      expect(bytes.includes('PLAIN-EDIT')).toBe(false);
    });
  });

  it("a message steered into an encrypted session's run reaches its planner, and neither the session's nor the run's history holds it in plaintext", async () => {
    const taskQueue = uniqueTaskQueue('encrypted-steer');
    const { worker, agents } = await encrypted(taskQueue, [oldKey]);
    await worker.runUntil(async () => {
      const session = agents.session(`enc-steer-${Date.now()}`);
      await session.open({ agent: 'scripted', confirmation: { all: true } });
      const first = await session.sendMessage({ content: secrets.message, plannerOptions: { steps: [callStep({ name: 'echo', args: { text: secrets.arg } }), { type: 'final', text: 'seen', reportContext: true }] } });
      const approval = await waitFor('the approval request', async () => (await agents.pendingInputs(first.workflowId).catch(() => undefined))?.approvals[0]);
      const steer = 'SECRET-STEER-4d21';
      expect(await session.sendMessage({ content: steer, whenBusy: 'steer', messageId: 'steer-1' })).toMatchObject({ delivery: 'steered' });
      await agents.decide(first.workflowId, { decision: 'approve', toolCallId: approval.toolCallId });
      const result = await agents.result(first.workflowId);
      expect(result.steered).toEqual(['steer-1']);
      const seen = (result.final?.structured as { messages: { role: string; content?: string }[] }).messages.filter((m) => m.role === 'user').map((m) => m.content);
      expect(seen).toEqual([secrets.message, steer]);
      for (const workflowId of [session.workflowId, first.workflowId]) {
        const { bytes } = await storedHistory(workflowId);
        for (const secret of [secrets.message, secrets.arg, steer]) expect(bytes.includes(secret)).toBe(false);
      }
      await session.close();
    });
  });

  it("an encrypted deployment's recorded run is evaluated with its keys, and the candidate run is stored encrypted too; without the keys it is refused, naming them", async () => {
    const taskQueue = uniqueTaskQueue('encrypted-eval');
    const { worker, agents } = await encrypted(taskQueue, [oldKey]);
    const recorded = await worker.runUntil(async () => {
      const { workflowId } = await agents.start(secretRun());
      await agents.result(workflowId);
      return agents.exportHistory(workflowId);
    });
    expect(recorded.includes(secrets.arg)).toBe(false);
    const histories = [{ source: 'encrypted-run.json', json: JSON.parse(recorded) as unknown }];
    const options = { histories, workflowBundle: await workflowBundleOption(), agents: testAgents, server: { address: env.address, namespace: env.namespace ?? 'default' } };

    await expect(evaluateRuns(options)).rejects.toThrow(/encrypted-run\.json: .*cannot be read.*encrypted/);
    const report = await evaluateRuns({ ...options, payloadCodecs: [new EncryptionCodec([oldKey])] });
    const [run] = report.runs;
    expect(run?.divergence).toBeUndefined();
    expect(run).toMatchObject({ unrecorded: [], sameFinal: true, answeredCalls: 1, candidate: { final: { text: secrets.final } } });
    for (const secret of Object.values(secrets)) expect((await storedHistory(run!.candidateWorkflowId)).bytes.includes(secret)).toBe(false);

    // agentctl eval reads the keys from DURABLE_AGENTS_ENCRYPTION_KEYS, as replay does.
    const file = join(testTempDir('encrypted-eval-'), 'encrypted-run.json');
    writeFileSync(file, recorded);
    const cli = ['eval', file, ...testWorkflowCodeArgs(), '--agent-module', await agentModuleForTests('test/support/agents.ts', 'eval-agents'), '--address', env.address, '--gate', 'no-divergence', '--format', 'json'];
    const keyed = await runAgentctl(cli, { DURABLE_AGENTS_ENCRYPTION_KEYS: `${oldKey.id}:${oldKey.key.toString('base64')}` });
    expect(keyed.code).toBe(0);
    expect(JSON.parse(keyed.stdout)).toMatchObject({ totals: { runs: 1, diverged: 0 }, runs: [{ candidate: { final: { text: secrets.final } } }] });
    const keyless = await runAgentctl(cli, { DURABLE_AGENTS_ENCRYPTION_KEYS: '' });
    expect([keyless.code, keyless.stderr]).toEqual([2, expect.stringMatching(/encrypted-run\.json: a payload is encrypted with key k-2026-10, and this process has no encryption keys; set DURABLE_AGENTS_ENCRYPTION_KEYS/)]);
  });

  it("a tenant's account of an encrypted deployment stores no plaintext: its quota, its runs' joins and answers are ciphertext; a client with the key reads and changes it", async () => {
    const taskQueue = uniqueTaskQueue('encrypted-tenant');
    const tenant = `enc-${randomBytes(4).toString('hex')}`;
    const { worker, agents } = await encrypted(taskQueue, [oldKey], { tenants: { [tenant]: { quota: { concurrentRuns: 1 } } } });
    await worker.runUntil(async () => {
      const first = await agents.start({ ...secretRun(), tenant });
      expect(await agents.result(first.workflowId)).toMatchObject({ status: 'completed' });
      await waitFor('the run left its account', async () => ((await tenantAccount(agents, tenant))?.counters.admitted === 1 && (await tenantAccount(agents, tenant))?.running === 0 ? true : undefined));
      expect(await setTenantQuota(agents, tenant, { concurrentRuns: 3, costPerDay: 7.5 })).toMatchObject({ quota: { concurrentRuns: 3, costPerDay: 7.5 }, configured: { concurrentRuns: 1 } });
    });
    const { payloads } = await storedHistory(tenantAccountWorkflowId(tenant));
    const plain = payloads.filter(({ payload }) => Buffer.from(payload.metadata?.encoding ?? []).toString() !== encryptedEncoding).map(({ path }) => path);
    expect(plain.filter((path) => !/searchAttributes\.indexedFields\./.test(path))).toEqual([]);
    expect(payloads.length).toBeGreaterThan(3);
  });

  it('after a key rotation old runs stay readable and new runs use the new key; a client without the key gets an error naming it', async () => {
    const taskQueue = uniqueTaskQueue('rotation');
    const before = await encrypted(taskQueue, [oldKey]);
    const old = await before.worker.runUntil(async () => {
      const started = await before.agents.start(secretRun());
      await before.agents.result(started.workflowId);
      return started;
    });

    const after = await encrypted(taskQueue, [newKey, oldKey]);
    await after.worker.runUntil(async () => {
      // The old run replays on the new worker (a status query needs its history decrypted).
      expect(await after.agents.status(old.workflowId)).toMatchObject({ status: 'completed' });
      expect((await after.agents.result(old.workflowId)).final?.text).toBe(secrets.final);
      const fresh = await after.agents.start(secretRun());
      expect((await after.agents.result(fresh.workflowId)).final?.text).toBe(secrets.final);
      const encryptedPayloads = (await storedHistory(fresh.workflowId)).payloads.filter(({ payload }) => payload.metadata?.[encryptionKeyIdKey]);
      expect(encryptedPayloads.length).toBeGreaterThan(5);
      expect(new Set(encryptedPayloads.map(({ payload }) => Buffer.from(payload.metadata?.[encryptionKeyIdKey] ?? []).toString()))).toEqual(new Set([newKey.id]));
    });

    const stranger = new AgentClient(
      new Client({ connection: env.connection, namespace: env.namespace ?? 'default', dataConverter: { payloadCodecs: [new EncryptionCodec([newKey])] } }),
      taskQueue,
      false,
    );
    await expect(stranger.result(old.workflowId)).rejects.toThrow(/encrypted with key k-2026-10, which this process does not have/);
  });

  it('one encrypted run never breaks a listing for a client without its key: it is listed from its search attributes, marked with its key id', async () => {
    const taskQueue = uniqueTaskQueue('enc-list');
    const { worker, agents } = await encrypted(taskQueue, [newKey]);
    const keyed = new AgentClient(agents.client, taskQueue, true);
    const plainClient = (converter?: DataConverter) =>
      new AgentClient(new Client({ connection: env.connection, namespace: env.namespace ?? 'default', ...(converter ? { dataConverter: converter } : {}) }), taskQueue, true);
    const secret = await worker.runUntil(async () => {
      const secretRunStarted = await keyed.start(secretRun());
      await keyed.result(secretRunStarted.workflowId);
      return secretRunStarted;
    });
    // Started once the worker has stopped: a worker with the key that picked it up would write
    // its memo encrypted.
    const plain = await plainClient().start(scriptedInput([finalStep('in the clear')]));
    // Listings read Temporal's visibility store, which sees a new run a moment after its start.
    await waitFor('both runs in the listing', async () => {
      const { entries } = await listRuns(keyed, { agent: 'scripted' }, { limit: 1000 });
      return [secret.workflowId, plain.workflowId].every((id) => entries.some((e) => e.workflowId === id)) || undefined;
    });
    const withoutKeys = plainClient(dataConverterFromEnv({}));
    const strangers = [plainClient(), withoutKeys, plainClient({ payloadCodecs: [new EncryptionCodec([oldKey])] })];
    for (const stranger of strangers) {
      const { entries } = await listRuns(stranger, { agent: 'scripted' }, { limit: 1000 });
      const listed = entries.find((e) => e.workflowId === secret.workflowId);
      expect(listed).toMatchObject({ agent: 'scripted', status: 'completed', encrypted: { keyId: newKey.id } });
      expect(entries.find((e) => e.workflowId === plain.workflowId)).toBeDefined();
      expect(entries.find((e) => e.workflowId === plain.workflowId)?.encrypted).toBeUndefined();
    }
    // The key holder lists it like any run.
    const own = (await listRuns(keyed, { agent: 'scripted' }, { limit: 1000 })).entries.find((e) => e.workflowId === secret.workflowId);
    expect(own).toMatchObject({ status: 'completed' });
    expect(own?.encrypted).toBeUndefined();
    // Reading it without keys names the key and where keys are set.
    await expect(withoutKeys.result(secret.workflowId)).rejects.toThrow(/encrypted with key k-2026-11, and this process has no encryption keys; set DURABLE_AGENTS_ENCRYPTION_KEYS/);
  });
});
