import { compileOwnSourcesAtEs2022, ownSourceRoot, ownSourceTarget } from '../../worker/bundle-target';

/** The SDK's rule for workflow TypeScript, as its bundler builds it. */
const sdkRule = {
  test: /\.ts$/,
  exclude: /node_modules/,
  use: { loader: '/x/node_modules/swc-loader/src/index.js', options: { sourceMap: true, jsc: { target: 'es2017', parser: { syntax: 'typescript', decorators: true } } } },
};
const sourceMapRule = { test: /\.js$/, enforce: 'pre' as const, use: ['/x/source-map-loader.js'] };

describe("this package's TypeScript compiles to ES2022 in the workflow bundle; users' code keeps the SDK's target", () => {
  const config = compileOwnSourcesAtEs2022({ mode: 'development', module: { rules: [sourceMapRule, sdkRule] } });
  const rules = config.module?.rules as Record<string, unknown>[];

  it('splits the swc rule: the SDK rule no longer takes our sources, a copy at ES2022 does', () => {
    expect(rules).toHaveLength(3);
    expect(rules[0]).toBe(sourceMapRule);
    expect(rules[1]).toEqual({ ...sdkRule, exclude: [/node_modules/, ownSourceRoot] });
    expect(rules[2]).toEqual({
      ...sdkRule,
      include: ownSourceRoot,
      use: { ...sdkRule.use, options: { ...sdkRule.use.options, jsc: { ...sdkRule.use.options.jsc, target: ownSourceTarget } } },
    });
  });

  it('leaves the input config alone, and a config without rules as it is', () => {
    expect(sdkRule.use.options.jsc.target).toBe('es2017');
    const bare = { mode: 'production' as const };
    expect(compileOwnSourcesAtEs2022(bare)).toBe(bare);
  });
});
