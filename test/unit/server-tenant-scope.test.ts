// What a token scoped to a tenant may do, decided without a server: which tenant a start takes,
// which a listing is scoped to, and which runs and routes it reaches.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { listQuery } from '../../client/list-query';
import { tenantIdSchema } from '../../contracts';
import { authenticate, authFromEnv, type Principal } from '../../server/auth';
import { ApiError } from '../../server/errors';
import { checkTenantScope, listTenant, startTenant } from '../../server/tenant-scope';
import { testTempDir } from '../support/temp-dir';

const acme: Principal = { name: 'acme-ops', role: 'operator', tenant: 'acme' };
const operator: Principal = { name: 'olivia', role: 'operator' };
const admin: Principal = { name: 'ada', role: 'admin' };

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

async function scopeRefusal(promise: Promise<void>): Promise<ApiError | undefined> {
  return promise.then(
    () => undefined,
    (err: unknown) => {
      if (err instanceof ApiError) return err;
      throw err;
    },
  );
}

const owners: Record<string, string | undefined> = { 'run-a': 'acme', 'run-b': 'globex', 'run-none': undefined, 'session-s-a': 'acme' };
const tenantOf = (id: string) => {
  if (id === 'unreadable') return Promise.reject(new Error('cannot decode the memo'));
  return id in owners ? Promise.resolve(owners[id]) : Promise.reject(new WorkflowNotFoundError(`${id} not found`, id, undefined));
};
const sessionWorkflowId = (id: string) => `session-${id}`;

describe('tenant ids', () => {
  it('takes a bounded printable id', () => {
    expect(tenantIdSchema().parse('acme.eu-1:team@x_y')).toBe('acme.eu-1:team@x_y');
  });

  it('refuses empty, spaced, quoted, leading punctuation and longer than 64', () => {
    for (const bad of ['', 'a b', "x' OR 'a'='a", '-acme', 'a'.repeat(65), 'acme\n']) expect(tenantIdSchema().safeParse(bad).success).toBe(false);
  });
});

describe('startTenant', () => {
  it('a scoped token starts under its tenant, named or not', () => {
    expect(startTenant(acme, undefined)).toBe('acme');
    expect(startTenant(acme, 'acme')).toBe('acme');
  });

  it('a scoped token naming another tenant is refused, naming the field and its own tenant', () => {
    const err = refusal(() => startTenant(acme, 'globex'));
    expect([err.type, err.message]).toEqual(['forbidden', 'body.tenant: acme-ops is scoped to tenant "acme" and may not start runs of tenant "globex"']);
  });

  it('an unscoped token names a tenant only as admin; without one the run has none', () => {
    expect(startTenant(admin, 'globex')).toBe('globex');
    expect(startTenant(operator, undefined)).toBeUndefined();
    expect(refusal(() => startTenant(operator, 'globex')).message).toMatch(/^body\.tenant: naming a tenant needs an admin token/);
  });
});

describe('listTenant', () => {
  it("a scoped token lists its own tenant's runs; asking for another is refused", () => {
    expect(listTenant(acme, undefined)).toBe('acme');
    expect(listTenant(acme, 'acme')).toBe('acme');
    expect(refusal(() => listTenant(acme, 'globex')).message).toBe('query.tenant: acme-ops is scoped to tenant "acme"');
  });

  it('an unscoped token lists what it asks for', () => {
    expect(listTenant(operator, undefined)).toBeUndefined();
    expect(listTenant(operator, 'globex')).toBe('globex');
  });

  it('the listing query filters by AgentTenant, one literal whatever the value', () => {
    expect(listQuery({ tenant: 'acme', status: 'completed' })).toBe("WorkflowType = 'agentRun' AND AgentTenant = 'acme' AND AgentStatus = 'completed'");
  });
});

describe('checkTenantScope', () => {
  it("reaches its tenant's runs and sessions by id", async () => {
    await expect(checkTenantScope(acme, '/api/runs/:id/pause', { id: 'run-a' }, tenantOf, sessionWorkflowId)).resolves.toBeUndefined();
    await expect(checkTenantScope(acme, '/api/sessions/:id', { id: 's-a' }, tenantOf, sessionWorkflowId)).resolves.toBeUndefined();
  });

  it("is refused another tenant's run, and a run of none, naming its own tenant only", async () => {
    for (const id of ['run-b', 'run-none']) {
      const err = await scopeRefusal(checkTenantScope(acme, '/api/runs/:id', { id }, tenantOf, sessionWorkflowId));
      expect(err?.message).toBe(`acme-ops is scoped to tenant "acme": "${id}" is not a run or session of that tenant`);
    }
  });

  it('leaves a run that does not exist to its route (404)', async () => {
    await expect(checkTenantScope(acme, '/api/runs/:id', { id: 'missing' }, tenantOf, sessionWorkflowId)).resolves.toBeUndefined();
  });

  it('fails closed when it cannot tell whose a run is', async () => {
    await expect(checkTenantScope(acme, '/api/runs/:id', { id: 'unreadable' }, tenantOf, sessionWorkflowId)).rejects.toThrow('cannot decode the memo');
  });

  it('is refused every route it is not scoped for (the inbox, chats, metrics), and takes the listings', async () => {
    for (const path of ['/api/inbox', '/api/chat', '/api/ag-ui', '/metrics']) {
      expect((await scopeRefusal(checkTenantScope(acme, path, {}, tenantOf, sessionWorkflowId)))?.type).toBe('forbidden');
    }
    for (const path of ['/api/runs', '/api/sessions', '/api/whoami']) await expect(checkTenantScope(acme, path, {}, tenantOf, sessionWorkflowId)).resolves.toBeUndefined();
  });

  it("reaches its own tenant's account and is refused another's, naming its own tenant", async () => {
    for (const path of ['/api/tenants/:tenant', '/api/tenants/:tenant/quota']) {
      await expect(checkTenantScope(acme, path, { tenant: 'acme' }, tenantOf, sessionWorkflowId)).resolves.toBeUndefined();
      const err = await scopeRefusal(checkTenantScope(acme, path, { tenant: 'globex' }, tenantOf, sessionWorkflowId));
      expect({ type: err?.type, message: err?.message }).toEqual({ type: 'forbidden', message: `acme-ops is scoped to tenant "acme": it reads that tenant's account only, not "globex"'s` });
    }
  });

  it('checks nothing for a token without a tenant', async () => {
    await expect(checkTenantScope(operator, '/api/runs/:id', { id: 'run-b' }, tenantOf, sessionWorkflowId)).resolves.toBeUndefined();
    await expect(checkTenantScope(operator, '/api/tenants/:tenant', { tenant: 'globex' }, tenantOf, sessionWorkflowId)).resolves.toBeUndefined();
  });
});

describe('tokens scoped to a tenant', () => {
  it('a tokens file entry may name a tenant; the principal carries it', () => {
    const file = join(testTempDir('tenant-tokens'), 'tokens.json');
    writeFileSync(file, JSON.stringify([{ name: 'acme-ops', role: 'operator', token: 'acme-token-0123456789', tenant: 'acme' }]));
    const auth = authFromEnv({ DURABLE_AGENTS_TOKENS_FILE: file });
    expect(authenticate(auth, 'acme-token-0123456789')).toEqual(acme);
  });

  it('a bad tenant, or a tenant on a publisher token, is refused naming the entry and field', () => {
    const file = join(testTempDir('tenant-tokens-bad'), 'tokens.json');
    writeFileSync(file, JSON.stringify([{ name: 'p', role: 'publisher', token: 'publisher-token-0123456789', tenant: 'acme' }]));
    expect(() => authFromEnv({ DURABLE_AGENTS_TOKENS_FILE: file })).toThrow(/entry 1: tenant: publisher tokens are not scoped to tenants/);
    writeFileSync(file, JSON.stringify([{ name: 'x', role: 'viewer', token: 'viewer-token-0123456789', tenant: 'a b' }]));
    expect(() => authFromEnv({ DURABLE_AGENTS_TOKENS_FILE: file })).toThrow(/entry 1: tenant: a tenant id is letters/);
  });
});
