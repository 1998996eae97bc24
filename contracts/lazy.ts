import { z } from 'zod';

/**
 * A schema's builder: builds the schema on its first call and returns that one instance from
 * then on. For a schema several tools (or a tool and its `requiresConfirmation`) share:
 * `const symbol = builtOnce(() => z.string())`, then `input: symbol` or `symbol()` inside
 * another builder.
 *
 * Workflow code parses through these builders. The SDK evaluates a workflow bundle's modules
 * afresh for every execution, cache-miss replay and continue-as-new, so whatever a contract
 * module creates when it loads, every run pays for, in start CPU and in the heap of every
 * cached run. A builder is one small closure until it is called; a run builds only the schemas
 * it parses, and their children with them.
 */
export function builtOnce<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

/**
 * A schema built on first use: zod's own `z.lazy`, so parsing, JSON Schema and identity behave
 * as for any schema. The public schemas (`contracts/schemas.ts`) wrap the contracts' builders
 * this way. A `z.lazy` carries about ten closures of its own, so workflow code does not create
 * them for contracts: it calls the builders.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(build);
}
