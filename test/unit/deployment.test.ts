import { devServerSafetyArgs } from '../../testing/dev-server';
import { DurableAgentsPlugin } from '../../worker/plugin';
import { checkDeployment, deploymentFromEnv, workerDeploymentOptions } from '../../worker/deployment';
import { formatWorkerVersion, runWorkerVersion } from '../../client/worker-version';
import { temporal } from '@temporalio/proto';

describe('worker deployment from env', () => {
  it('is unversioned when neither variable is set (empty counts as unset)', () => {
    expect(deploymentFromEnv({})).toBeUndefined();
    expect(deploymentFromEnv({ DURABLE_AGENTS_DEPLOYMENT_NAME: '', DURABLE_AGENTS_BUILD_ID: ' ' })).toBeUndefined();
  });

  it('reads the name and build id, pinned by default', () => {
    expect(deploymentFromEnv({ DURABLE_AGENTS_DEPLOYMENT_NAME: 'agents', DURABLE_AGENTS_BUILD_ID: '2026-11-23.1' })).toEqual({ name: 'agents', buildId: '2026-11-23.1', defaultBehavior: 'PINNED' });
  });

  it('reads the behavior in any case', () => {
    expect(deploymentFromEnv({ DURABLE_AGENTS_DEPLOYMENT_NAME: 'agents', DURABLE_AGENTS_BUILD_ID: 'b1', DURABLE_AGENTS_VERSIONING_BEHAVIOR: 'auto_upgrade' })).toMatchObject({ defaultBehavior: 'AUTO_UPGRADE' });
  });

  it.each([
    ['half the pair', { DURABLE_AGENTS_BUILD_ID: 'b1' }, /set both DURABLE_AGENTS_DEPLOYMENT_NAME and DURABLE_AGENTS_BUILD_ID, or neither: DURABLE_AGENTS_DEPLOYMENT_NAME is missing/],
    ['a behavior without a version', { DURABLE_AGENTS_VERSIONING_BEHAVIOR: 'PINNED' }, /DURABLE_AGENTS_VERSIONING_BEHAVIOR is set but the worker is not versioned/],
    ['an unknown behavior', { DURABLE_AGENTS_DEPLOYMENT_NAME: 'a', DURABLE_AGENTS_BUILD_ID: 'b', DURABLE_AGENTS_VERSIONING_BEHAVIOR: 'sticky' }, /DURABLE_AGENTS_VERSIONING_BEHAVIOR must be PINNED or AUTO_UPGRADE/],
    ['a dot in the name', { DURABLE_AGENTS_DEPLOYMENT_NAME: 'my.agents', DURABLE_AGENTS_BUILD_ID: 'b' }, /DURABLE_AGENTS_DEPLOYMENT_NAME must not contain "\."/],
    ['whitespace in the build id', { DURABLE_AGENTS_DEPLOYMENT_NAME: 'a', DURABLE_AGENTS_BUILD_ID: 'build 7' }, /DURABLE_AGENTS_BUILD_ID must not contain whitespace/],
    ['the reserved build id', { DURABLE_AGENTS_DEPLOYMENT_NAME: 'a', DURABLE_AGENTS_BUILD_ID: '__unversioned__' }, /DURABLE_AGENTS_BUILD_ID "__unversioned__" is reserved/],
  ])('refuses %s, naming the variable', (_what, env, message) => {
    expect(() => deploymentFromEnv(env)).toThrow(message);
  });
});

describe('worker deployment option', () => {
  it('becomes Temporal worker deployment options, pinned by default', () => {
    expect(workerDeploymentOptions({ name: 'agents', buildId: 'v2' })).toEqual({ version: { deploymentName: 'agents', buildId: 'v2' }, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' });
  });

  it('names the bad field', () => {
    expect(() => checkDeployment({ name: '', buildId: 'v1' })).toThrow(/invalid worker deployment: deployment\.name is empty/);
    expect(() => checkDeployment({ name: 'a', buildId: 'v1', defaultBehavior: 'LATEST' as never })).toThrow(/deployment\.defaultBehavior must be PINNED or AUTO_UPGRADE/);
  });

  it('is applied by the plugin unless the worker options set their own', () => {
    const plugin = new DurableAgentsPlugin({ agents: [], tools: [], openai: null, encryption: null, deployment: { name: 'agents', buildId: 'v1' } });
    const base = { taskQueue: 'q' };
    expect(plugin.configureWorker(base).workerDeploymentOptions).toEqual(workerDeploymentOptions({ name: 'agents', buildId: 'v1' }));
    const own = workerDeploymentOptions({ name: 'other', buildId: 'x', defaultBehavior: 'AUTO_UPGRADE' });
    expect(plugin.configureWorker({ ...base, workerDeploymentOptions: own }).workerDeploymentOptions).toBe(own);
    const off = new DurableAgentsPlugin({ agents: [], tools: [], openai: null, encryption: null, deployment: null });
    expect(off.configureWorker(base).workerDeploymentOptions).toBeUndefined();
  });
});

describe('a run\'s worker version', () => {
  const { VersioningBehavior } = temporal.api.enums.v1;
  const described = (versioningInfo: temporal.api.workflow.v1.IWorkflowExecutionVersioningInfo | undefined) => ({ raw: { workflowExecutionInfo: { versioningInfo } } }) as never;

  it('is all null for an unversioned run', () => {
    const v = runWorkerVersion(described(undefined));
    expect(v).toEqual({ deploymentName: null, buildId: null, behavior: null, override: null });
    expect(formatWorkerVersion(v)).toBe('unversioned');
  });

  it('reads the version, the behavior and an override', () => {
    const v = runWorkerVersion(
      described({
        behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
        deploymentVersion: { deploymentName: 'agents', buildId: 'v1' },
        versioningOverride: { pinned: { version: { deploymentName: 'agents', buildId: 'v0' } } },
      }),
    );
    expect(v).toEqual({ deploymentName: 'agents', buildId: 'v1', behavior: 'PINNED', override: { behavior: 'PINNED', deploymentName: 'agents', buildId: 'v0' } });
    expect(formatWorkerVersion(v)).toBe('agents.v1 (pinned), override: pinned to agents.v0');
  });
});

describe('dev server', () => {
  it('reports a drained version within seconds, not the cluster defaults of minutes', () => {
    const args = devServerSafetyArgs.join(' ');
    expect(args).toContain('matching.wv.VersionDrainageStatusVisibilityGracePeriod="5s"');
    expect(args).toContain('matching.wv.VersionDrainageStatusRefreshInterval="5s"');
  });
});
