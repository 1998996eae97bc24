import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { AgentClient, AgentClientError } from '../../client/agent-client';
import { RunIdTakenError } from '../../history/id-reuse';
import { CheckpointError } from '../../history/checkpoints';
import { apiVersion, createAgentApp } from '../../server/app';
import { authenticate, authFromEnv, authorize, isAllowed, requestToken, type AuthConfig, type Principal } from '../../server/auth';
import { authModeLine, deltasModeLine } from '../../server/auth-mode';
import { ApiError, apiErrorStatus, toApiError } from '../../server/errors';
import { LiveHub } from '../../server/live';
import { testTempDir } from '../support/temp-dir';

const secret = 'sup3r-secret-token-value';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('authFromEnv', () => {
  it('reads name:role:token entries and local-dev mode', () => {
    expect(authFromEnv({ DURABLE_AGENTS_TOKENS: `ann:viewer:${secret}, bo:admin:${secret}:with-colon` })).toEqual({
      localDev: false,
      tokens: [
        { name: 'ann', role: 'viewer', token: secret },
        { name: 'bo', role: 'admin', token: `${secret}:with-colon` },
      ],
    });
    expect(authFromEnv({ DURABLE_AGENTS_LOCAL_DEV: '1' })).toEqual({ tokens: [], localDev: true });
    expect(authFromEnv({})).toEqual({ tokens: [], localDev: false });
  });

  it('names the bad entry and field, never echoing a token', () => {
    const badRole = thrown(() => authFromEnv({ DURABLE_AGENTS_TOKENS: `ann:viewer:${secret},bo:root:${secret}` }));
    expect(badRole.message).toMatch(/^DURABLE_AGENTS_TOKENS entry 2 \(expected name:role:token\): role: /);
    expect(badRole.message).not.toContain(secret);

    const short = thrown(() => authFromEnv({ DURABLE_AGENTS_TOKENS: 'ann:viewer:short-one' }));
    expect(short.message).toBe('DURABLE_AGENTS_TOKENS entry 1 (expected name:role:token): token: tokens must be at least 16 characters');
    expect(short.message).not.toContain('short-one');

    const noName = thrown(() => authFromEnv({ DURABLE_AGENTS_TOKENS: `:viewer:${secret}` }));
    expect(noName.message).toMatch(/^DURABLE_AGENTS_TOKENS entry 1 .*: name: /);
    expect(noName.message).not.toContain(secret);
  });

  it('reads a tokens file, naming the file and entry when it is wrong', () => {
    const dir = testTempDir('server-auth-');
    const good = join(dir, 'tokens.json');
    writeFileSync(good, JSON.stringify([{ name: 'ops', role: 'operator', token: secret }]));
    expect(authFromEnv({ DURABLE_AGENTS_TOKENS_FILE: good }).tokens).toEqual([{ name: 'ops', role: 'operator', token: secret }]);

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ name: 'ops', role: 'operator', token: secret }, { name: 'pub', role: 'writer', token: secret }]));
    const error = thrown(() => authFromEnv({ DURABLE_AGENTS_TOKENS_FILE: bad }));
    expect(error.message).toMatch(new RegExp(`^DURABLE_AGENTS_TOKENS_FILE ${bad} entry 2: role: `));
    expect(error.message).not.toContain(secret);

    const object = join(dir, 'object.json');
    writeFileSync(object, '{}');
    expect(thrown(() => authFromEnv({ DURABLE_AGENTS_TOKENS_FILE: object })).message).toMatch(/expected a JSON array/);
    expect(thrown(() => authFromEnv({ DURABLE_AGENTS_TOKENS_FILE: join(dir, 'missing.json') })).message).toMatch(/^DURABLE_AGENTS_TOKENS_FILE .*missing\.json: /);
  });
});

describe('roles', () => {
  const auth: AuthConfig = { localDev: false, tokens: [{ name: 'ann', role: 'operator', token: secret }] };
  const as = (role: Principal['role']): Principal => ({ name: 'x', role });

  it('authenticates bearer tokens; local-dev lets requests without one in as admin', () => {
    expect(authenticate(auth, secret)).toEqual({ name: 'ann', role: 'operator' });
    expect(thrown(() => authenticate(auth, 'wrong-token-wrong-token'))).toMatchObject({ type: 'unauthorized' });
    expect(thrown(() => authenticate(auth, undefined))).toMatchObject({ type: 'unauthorized', message: expect.stringMatching(/missing bearer token/) });
    expect(authenticate({ ...auth, localDev: true }, undefined)).toEqual({ name: 'local-dev', role: 'admin' });
    // A wrong token is refused even in local-dev mode.
    expect(thrown(() => authenticate({ ...auth, localDev: true }, 'wrong-token-wrong-token'))).toMatchObject({ type: 'unauthorized' });
  });

  it('orders viewer < operator < admin; publisher only publishes', () => {
    const table = (['viewer', 'operator', 'admin', 'publisher'] as const).map((role) => [role, (['public', 'viewer', 'operator', 'admin', 'publisher'] as const).filter((access) => isAllowed(as(role), access))]);
    expect(table).toEqual([
      ['viewer', ['public', 'viewer']],
      ['operator', ['public', 'viewer', 'operator']],
      ['admin', ['public', 'viewer', 'operator', 'admin', 'publisher']],
      ['publisher', ['public', 'publisher']],
    ]);
    expect(thrown(() => authorize({ name: 'vera', role: 'viewer' }, 'admin'))).toMatchObject({ type: 'forbidden', message: 'vera has role viewer; this needs admin' });
  });

  it('takes the token from the Authorization header, else access_token', () => {
    expect(requestToken(`Bearer ${secret}`, undefined)).toBe(secret);
    expect(requestToken(undefined, secret)).toBe(secret);
    expect(requestToken(undefined, '')).toBeUndefined();
    expect(thrown(() => requestToken(`Basic ${secret}`, undefined))).toMatchObject({ type: 'unauthorized', message: 'the Authorization header must be "Bearer <token>"' });
  });

  it('the start-up line names holders and roles, never tokens, and shouts local-dev mode', () => {
    expect(authModeLine(auth)).toBe('auth: bearer tokens (Authorization: Bearer <token>) of ann (operator)');
    expect(authModeLine({ tokens: [], localDev: true })).toMatch(/^auth: LOCAL-DEV MODE: requests without a token act as admin/);
    expect(authModeLine({ ...auth, localDev: true })).not.toContain(secret);
  });

  it('the start-up line says whose token deltas are taken, and warns about publisher tokens not scoped to task queues', () => {
    const publishers = {
      localDev: false,
      tokens: [
        { name: 'billing-workers', role: 'publisher' as const, token: 'p'.repeat(20), taskQueues: ['billing'] },
        { name: 'any-worker', role: 'publisher' as const, token: 'q'.repeat(20) },
      ],
    };
    expect(deltasModeLine(publishers, [{ id: 'd2', key: new Uint8Array(32) }])).toBe('token deltas: only those signed with delta key d2 are taken');
    expect(deltasModeLine(publishers, [])).toMatch(/^token deltas: unsigned, .*; WARNING: publisher token any-worker is not scoped to task queues and may write live text into any run$/);
    expect(deltasModeLine({ localDev: false, tokens: [publishers.tokens[0] as (typeof publishers.tokens)[0]] }, [])).not.toContain('WARNING');
  });
});

describe('error mapping', () => {
  it('keeps the meaning of client, checkpoint and Temporal errors', () => {
    const cases: [unknown, string][] = [
      [new AgentClientError('invalid_input', 'x'), 'invalid_input'],
      [new AgentClientError('run_not_found', 'x'), 'run_not_found'],
      [new AgentClientError('run_ended', 'x'), 'run_ended'],
      [new AgentClientError('rejected', 'x'), 'rejected'],
      [new AgentClientError('unanswered', 'x'), 'unavailable'],
      [new AgentClientError('start_failed', 'x'), 'failure'],
      [new RunIdTakenError('run-1', '0192e6c4-3f1a-7b2c-9d4e-5f6a7b8c9d0e', 'completed'), 'already_exists'],
      [new CheckpointError('no_such_turn', 'x'), 'rejected'],
      [new CheckpointError('invalid_input', 'x'), 'invalid_input'],
      [new WorkflowNotFoundError('gone', 'run-1', undefined), 'run_not_found'],
      [new WorkflowExecutionAlreadyStartedError('taken', 'run-1', 'agentRun'), 'already_started'],
      [new WorkflowFailedError('Workflow execution failed', new Error('bug in agent code'), RetryState.NON_RETRYABLE_FAILURE), 'run_failed'],
      [new ApiError('not_configured', 'x'), 'not_configured'],
      [new Error('boom'), 'failure'],
      ['a string', 'failure'],
    ];
    expect(cases.map(([err]) => toApiError(err).type)).toEqual(cases.map(([, type]) => type));
    expect(toApiError(new WorkflowNotFoundError('gone', 'run-1', undefined)).message).toBe('run run-1 not found');
    expect(new ApiError('rejected', 'no').body()).toEqual({ error: { type: 'rejected', message: 'no' } });
    expect(Object.entries(apiErrorStatus)).toEqual([
      ['invalid_input', 400],
      ['unauthorized', 401],
      ['forbidden', 403],
      ['run_not_found', 404],
      ['not_found', 404],
      ['run_ended', 409],
      ['run_failed', 409],
      ['already_started', 409],
      ['already_exists', 409],
      ['session_busy', 409],
      ['too_large', 413],
      ['unsupported_media_type', 415],
      ['rejected', 422],
      ['not_configured', 501],
      ['unavailable', 503],
      ['failure', 500],
    ]);
  });

  it('the app answers auth, validation and routing errors as JSON before any Temporal call', async () => {
    // A client whose connection is never opened: every request below fails before using it.
    const agents = new AgentClient(new Client(), 'unused');
    const auth: AuthConfig = { localDev: false, tokens: [{ name: 'vera', role: 'viewer', token: secret }, { name: 'olivia', role: 'operator', token: `${secret}-op` }] };
    const app = createAgentApp({ agents, auth, live: new LiveHub(agents) });
    const request = async (method: string, path: string, token?: string, body?: string) => {
      const response = await app.request(path, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' }, ...(body !== undefined ? { body } : {}) });
      return { status: response.status, body: (await response.json()) as { error: { type: string; message: string } } };
    };
    expect(await request('GET', '/api/runs')).toMatchObject({ status: 401, body: { error: { type: 'unauthorized' } } });
    expect(await request('POST', '/api/runs/r1/kill', `${secret}-op`, '{}')).toEqual({ status: 403, body: { error: { type: 'forbidden', message: 'olivia has role operator; this needs admin' } } });
    expect(await request('POST', '/api/runs/r1/decisions', `${secret}-op`, '{"decision":"approve"}')).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_input', message: expect.stringMatching(/^body\.toolCallId: /) } },
    });
    expect(await request('POST', '/api/runs/r1/fork', `${secret}-op`, '{"toTurn":1}')).toMatchObject({ status: 403 });
    expect(await request('GET', '/api/runs?limit=5000', secret)).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^query\.limit: /) } } });
    expect(await request('DELETE', '/api/runs/r1', secret)).toMatchObject({ status: 404, body: { error: { type: 'not_found' } } });
  });
});

describe('API version', () => {
  it('is the package version', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect(apiVersion).toBe((require('../../package.json') as { version: string }).version);
  });
});
