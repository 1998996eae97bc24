import { resolve } from 'node:path';
import type { BundleOptions } from '@temporalio/worker';

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type Rule = NonNullable<NonNullable<WebpackConfig['module']>['rules']>[number];

/** This package's root: its TypeScript sources in a checkout (the published package ships JS). */
export const ownSourceRoot = resolve(__dirname, '..');

/** What this package's own TypeScript compiles to in the workflow bundle: tsconfig's target. */
export const ownSourceTarget = 'es2022';

interface SwcUse {
  readonly loader: string;
  readonly options?: { readonly jsc?: Record<string, unknown> } & Record<string, unknown>;
}

/** The swc-loader use of a rule (the SDK's rule for `.ts` files), if it is one. */
function swcUse(rule: Rule): SwcUse | undefined {
  if (!rule || typeof rule !== 'object') return undefined;
  const use: unknown = (rule as { use?: unknown }).use;
  if (typeof use !== 'object' || use === null || Array.isArray(use)) return undefined;
  const loader: unknown = (use as { loader?: unknown }).loader;
  return typeof loader === 'string' && /swc-loader/.test(loader) ? (use as SwcUse) : undefined;
}

/**
 * Compiles this package's own TypeScript (in a checkout: the library, its examples, tests and
 * benchmark) to ES2022 in the workflow bundle, as `tsc` compiles the published package, instead
 * of the SDK's default ES2017.
 *
 * Why: at ES2017, swc turns every object spread, optional chain and `??` into helper calls; the
 * spread helpers alone were about a quarter of the bundle code's own CPU in a run's turns. The
 * published package is already ES2022 JavaScript, which the bundler does not compile, so this
 * makes a checkout's bundle what users run. None of these syntax features creates or awaits a
 * promise, so a run emits the same commands either way. Users' own TypeScript (outside this
 * package) keeps the SDK's settings: a different target could change their code's promise
 * timing (async generators are transformed below ES2018).
 */
export function compileOwnSourcesAtEs2022(config: WebpackConfig): WebpackConfig {
  const rules = config.module?.rules;
  if (!rules) return config;
  const next: Rule[] = [];
  for (const rule of rules) {
    const use = swcUse(rule);
    if (!use) {
      next.push(rule);
      continue;
    }
    const { exclude, ...rest } = rule as Record<string, unknown>;
    const excluded: unknown[] = exclude === undefined ? [] : Array.isArray(exclude) ? exclude : [exclude];
    const options = use.options ?? {};
    next.push({ ...rest, exclude: [...excluded, ownSourceRoot] } as Rule);
    next.push({
      ...rest,
      include: ownSourceRoot,
      ...(exclude === undefined ? {} : { exclude }),
      use: { ...use, options: { ...options, jsc: { ...options.jsc, target: ownSourceTarget } } },
    } as Rule);
  }
  return { ...config, module: { ...config.module, rules: next } };
}
