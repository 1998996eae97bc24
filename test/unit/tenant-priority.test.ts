import { tenantPriority, tenantPriorityOption } from '../../contracts/tenant-priority';
import { parseTenantsConfig } from '../../contracts/tenant-settings';

describe('tenant priority', () => {
  const config = parseTenantsConfig({ default: { dispatch: { priority: 4 } }, tenants: { acme: { dispatch: { priority: 2, weight: 3 } }, globex: { dispatch: { weight: 0.5 } } } }, 'x');

  it("keys a tenant's run by the tenant, with the tier and weight of its dispatch over the default", () => {
    expect(tenantPriority(config, 'acme')).toEqual({ priorityKey: 2, fairnessKey: 'acme', fairnessWeight: 3 });
    expect(tenantPriority(config, 'globex')).toEqual({ priorityKey: 4, fairnessKey: 'globex', fairnessWeight: 0.5 });
    expect(tenantPriority(config, 'initech')).toEqual({ priorityKey: 4, fairnessKey: 'initech' });
  });

  it('keys a tenant without settings or tenants file by the tenant alone (Temporal default tier and weight)', () => {
    expect(tenantPriority(undefined, 'acme')).toEqual({ fairnessKey: 'acme' });
    expect(tenantPriority({}, 'acme')).toEqual({ fairnessKey: 'acme' });
  });

  it('gives a run without a tenant no priority at all, whatever the default says', () => {
    expect(tenantPriority(config, undefined)).toBeUndefined();
    expect(tenantPriorityOption(config, undefined)).toEqual({});
    expect(tenantPriorityOption(config, 'acme')).toEqual({ priority: { priorityKey: 2, fairnessKey: 'acme', fairnessWeight: 3 } });
  });
});
