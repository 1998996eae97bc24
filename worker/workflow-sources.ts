import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ownSourceRoot } from './bundle-target';

/**
 * Where workflow bundles take this package's workflow-side modules from.
 *
 * The published package ships them twice: CommonJS in `dist/workflows` (what Node loads, e.g.
 * the contracts a client imports) and ES modules in `dist/esm/workflows` (only for workflow
 * bundles). Webpack can concatenate ES modules into one scope (`optimization.concatenateModules`),
 * which it cannot do with CommonJS; a run then evaluates far fewer module functions and export
 * accessors when it starts, and a cached run keeps less heap. In a checkout, the TypeScript
 * sources in `workflows/` are used (compiled to ES modules by the SDK's swc rule).
 *
 * Every module the bundler is pointed at by path must come from the same tree, or a bundle
 * would hold two copies of a module whose state they share (the turn-boundary marks, zod).
 */
export const workflowSourceDir: string = pickWorkflowSourceDir(ownSourceRoot);

/**
 * The ES-module tree next to a built worker (`<root>/esm/workflows`, with `<root>` the package's
 * `dist`) when it exists, else `<root>/workflows` (the TypeScript sources of a checkout, or a
 * build without the ES-module tree).
 */
export function pickWorkflowSourceDir(root: string, exists: (path: string) => boolean = existsSync): string {
  const esm = resolve(root, 'esm', 'workflows');
  return exists(resolve(esm, 'index.js')) ? esm : resolve(root, 'workflows');
}

/** A workflow-side module of this package by its name in `workflows/` (no extension). */
export function workflowSourceModule(name: string): string {
  return resolve(workflowSourceDir, name);
}

/**
 * The workflow interceptor module that traces runs (added to the workflow bundle): Temporal's
 * OpenTelemetry interceptors without their update wrapper (see workflows/bundle/tracing-interceptors.ts).
 */
export const workflowTracingModule = workflowSourceModule('bundle/tracing-interceptors');
