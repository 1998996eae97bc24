// Configuration is explicit: DurableAgentsPlugin and AgentClient.connect read no environment
// variable; workerConfigFromEnv() and clientOptionsFromEnv() read them when asked (and
// createAgentWorker, the one-call factory, for what its options leave out).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientOptionsFromEnv } from '../../client/agent-client';
import { unreadEnvWarning, unreadEnvWarningCode, warnUnreadEnvOnce } from '../../client/unread-env';
import { withWorkerEnvDefaults, workerConfigFromEnv } from '../../worker/config-worker';
import { EncryptedPayloadGuard, EncryptionCodec } from '../../config/encryption';
import { DurableAgentsPlugin } from '../../worker/plugin';

const key = `k1:${randomBytes(32).toString('base64')}`;
const everything = {
  TEMPORAL_ADDRESS: 'temporal.internal:7233',
  TEMPORAL_NAMESPACE: 'agents',
  TEMPORAL_TASK_QUEUE: 'notes',
  OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  DURABLE_AGENTS_ENCRYPTION_KEYS: key,
  DURABLE_AGENTS_DEPLOYMENT_NAME: 'agents',
  DURABLE_AGENTS_BUILD_ID: 'b1',
  DURABLE_AGENTS_DELTAS_URL: 'http://127.0.0.1:9',
};

describe('workerConfigFromEnv', () => {
  it('reads the connection, model client, keys, deployment and deltas the environment sets', () => {
    const config = workerConfigFromEnv(everything);
    expect(config.config).toMatchObject({ address: 'temporal.internal:7233', namespace: 'agents', taskQueue: 'notes' });
    expect(config.openai).toBeDefined();
    expect(config.encryption?.[0].id).toBe('k1');
    expect(config.deployment).toMatchObject({ name: 'agents', buildId: 'b1' });
    expect(config.model?.deltas).toBeDefined();
    expect(config.tracing).toBeUndefined();
  });

  it('gives only the connection for an empty environment', () => {
    expect(Object.keys(workerConfigFromEnv({}))).toEqual(['config']);
  });

  it('reads no variable for an option given, and keeps null off', () => {
    const options = withWorkerEnvDefaults({ encryption: null, deployment: { name: 'mine', buildId: 'b2' } }, { ...everything, DURABLE_AGENTS_ENCRYPTION_KEYS: 'malformed' });
    expect(options.encryption).toBeNull();
    expect(options.deployment).toEqual({ name: 'mine', buildId: 'b2' });
  });
});

describe('DurableAgentsPlugin', () => {
  it('reads no environment variable: a deployment in the environment does not version it', () => {
    const saved = { ...process.env };
    Object.assign(process.env, { DURABLE_AGENTS_DEPLOYMENT_NAME: 'agents', DURABLE_AGENTS_BUILD_ID: 'b1', DURABLE_AGENTS_ENCRYPTION_KEYS: 'malformed' });
    try {
      expect(new DurableAgentsPlugin({ agents: [], tools: [] }).workerDeploymentOptions).toBeUndefined();
      expect(new DurableAgentsPlugin({ ...workerConfigFromEnv({ DURABLE_AGENTS_DEPLOYMENT_NAME: 'agents', DURABLE_AGENTS_BUILD_ID: 'b1' }), agents: [], tools: [] }).workerDeploymentOptions).toMatchObject({ version: { deploymentName: 'agents', buildId: 'b1' } });
    } finally {
      for (const name of ['DURABLE_AGENTS_DEPLOYMENT_NAME', 'DURABLE_AGENTS_BUILD_ID', 'DURABLE_AGENTS_ENCRYPTION_KEYS']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

describe('clientOptionsFromEnv', () => {
  it('encrypts with the keys the environment sets', () => {
    expect(clientOptionsFromEnv({ DURABLE_AGENTS_ENCRYPTION_KEYS: key }).dataConverter?.payloadCodecs?.[0]).toBeInstanceOf(EncryptionCodec);
  });

  it('guards encrypted payloads and traces nothing for an empty environment', () => {
    const options = clientOptionsFromEnv({});
    expect(options.dataConverter?.payloadCodecs?.[0]).toBeInstanceOf(EncryptedPayloadGuard);
    expect(options.tracing).toBeUndefined();
    expect(options.tenants).toBeUndefined();
  });

  it("reads the deployment's tenants file (the dispatch of a tenant's runs), and names it when it is wrong", () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-tenants-'));
    const file = join(dir, 'tenants.json');
    writeFileSync(file, JSON.stringify({ tenants: { acme: { dispatch: { priority: 2, weight: 3 } } } }));
    expect(clientOptionsFromEnv({ DURABLE_AGENTS_TENANTS_FILE: file }).tenants).toEqual({ tenants: { acme: { dispatch: { priority: 2, weight: 3 } } } });
    writeFileSync(file, JSON.stringify({ tenants: { acme: { dispatch: { priority: 9 } } } }));
    expect(() => clientOptionsFromEnv({ DURABLE_AGENTS_TENANTS_FILE: file })).toThrow(new RegExp(`^DURABLE_AGENTS_TENANTS_FILE ${file}: .*tenants\\.acme\\.dispatch\\.priority`));
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('AgentClient.connect() without a config, in an environment of TEMPORAL_* variables', () => {
  const defaults = { address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'durable-agents' };

  it('warns that it reads none of them, naming them, where it goes instead and AgentClient.fromEnv()', () => {
    expect(unreadEnvWarning({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_TASK_QUEUE: 'notes', OPENAI_API_KEY: 'sk-secret' }, defaults)).toBe(
      'TEMPORAL_ADDRESS=temporal.internal:7233, TEMPORAL_TASK_QUEUE=notes are set, but AgentClient.connect() without a config reads no environment variable: ' +
        'this client goes to 127.0.0.1:7233, namespace default, task queue durable-agents. Use AgentClient.fromEnv() to connect as the TEMPORAL_* variables say, or pass a config',
    );
    expect(unreadEnvWarning({ TEMPORAL_ADDRESS: ' ', OPENAI_API_KEY: 'sk-secret' }, defaults)).toBeUndefined();
  });

  it('warns once per process', () => {
    // Watched, not replaced: the warning is printed as Node prints it (jest's sandbox does not
    // pass the process's 'warning' events to a test's listener).
    const emitted = jest.spyOn(process, 'emitWarning');
    try {
      warnUnreadEnvOnce({}, defaults);
      warnUnreadEnvOnce({ TEMPORAL_TASK_QUEUE: 'notes' }, defaults);
      warnUnreadEnvOnce({ TEMPORAL_ADDRESS: 'temporal.internal:7233' }, defaults);
      expect(emitted.mock.calls).toEqual([
        [expect.stringMatching(/^TEMPORAL_TASK_QUEUE=notes is set, but AgentClient\.connect\(\) without a config/), { type: 'DurableAgentsWarning', code: unreadEnvWarningCode }],
      ]);
    } finally {
      emitted.mockRestore();
    }
  });
});
