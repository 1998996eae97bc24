import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tenantsConfigFromEnv } from '../../config/tenants-file';
import { parseTenantsConfig, settingsOf } from '../../contracts/tenant-settings';

describe('tenant settings', () => {
  it("takes a tenant's entry over the default, field by field", () => {
    const config = parseTenantsConfig({ default: { quota: { concurrentRuns: 5, costPerDay: 10 }, dispatch: { weight: 1 } }, tenants: { acme: { quota: { costPerDay: 50 } } } }, 'x');
    expect(settingsOf(config, 'acme')).toEqual({ quota: { concurrentRuns: 5, costPerDay: 50 }, dispatch: { weight: 1 } });
    expect(settingsOf(config, 'other')).toEqual({ quota: { concurrentRuns: 5, costPerDay: 10 }, dispatch: { weight: 1 } });
    expect(settingsOf({}, 'acme')).toEqual({});
  });

  it('refuses a wrong field, naming where and which', () => {
    expect(() => parseTenantsConfig({ tenants: { acme: { quota: { concurrentRuns: -1 } } } }, 'FILE f.json')).toThrow(/^FILE f\.json: .*tenants\.acme\.quota\.concurrentRuns/);
    expect(() => parseTenantsConfig({ tenants: { 'bad id!': {} } }, 'F')).toThrow(/tenants\.bad id!/);
    expect(() => parseTenantsConfig({ default: { quota: { costPerDya: 1 } } }, 'F')).toThrow(/costPerDya/);
  });

  it('reads the file named by DURABLE_AGENTS_TENANTS_FILE, and names it when it is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenants-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ tenants: { acme: { dispatch: { priority: 2 } } } }));
    expect(tenantsConfigFromEnv({ DURABLE_AGENTS_TENANTS_FILE: good })).toEqual({ tenants: { acme: { dispatch: { priority: 2 } } } });
    expect(tenantsConfigFromEnv({})).toBeUndefined();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{');
    expect(() => tenantsConfigFromEnv({ DURABLE_AGENTS_TENANTS_FILE: bad })).toThrow(`DURABLE_AGENTS_TENANTS_FILE ${bad}: not valid JSON`);
    expect(() => tenantsConfigFromEnv({ DURABLE_AGENTS_TENANTS_FILE: join(dir, 'none.json') })).toThrow(/ENOENT/);
  });
});
