import { resolve } from 'node:path';
import { configureAgentBundler } from '../../worker/plugin';
import { pickWorkflowSourceDir, workflowSourceDir } from '../../worker/workflow-sources';

type Config = Parameters<NonNullable<ReturnType<typeof configureAgentBundler>['webpackConfigHook']>>[0];

describe('where workflow bundles take the workflow-side modules from', () => {
  it('a built package: the ES-module tree beside the worker, when it was built', () => {
    const root = '/pkg/dist';
    expect(pickWorkflowSourceDir(root, (p) => p === resolve(root, 'esm/workflows/index.js'))).toBe(resolve(root, 'esm/workflows'));
    expect(pickWorkflowSourceDir(root, () => false)).toBe(resolve(root, 'workflows'));
  });

  it('a checkout: the TypeScript sources', () => {
    expect(workflowSourceDir).toBe(resolve(__dirname, '../../workflows'));
  });
});

describe('module concatenation in the workflow bundle', () => {
  const sdkConfig: Config = { mode: 'development', optimization: { minimize: false } };

  it('is on, other optimization settings kept', () => {
    const hook = configureAgentBundler({ workflowsPath: '/w.ts' }).webpackConfigHook!;
    expect(hook(sdkConfig).optimization).toEqual({ minimize: false, concatenateModules: true });
  });

  it("a user's hook sees it on and may turn it off", () => {
    let seen: unknown;
    const hook = configureAgentBundler({
      workflowsPath: '/w.ts',
      webpackConfigHook: (config) => {
        seen = config.optimization?.concatenateModules;
        return { ...config, optimization: { ...config.optimization, concatenateModules: false } };
      },
    }).webpackConfigHook!;
    expect(hook(sdkConfig).optimization?.concatenateModules).toBe(false);
    expect(seen).toBe(true);
  });
});
