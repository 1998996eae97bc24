import { z } from 'zod';

/**
 * A schema built on first use. Every workflow execution evaluates the contracts module afresh
 * (the SDK isolates module state per run), and building all of its schemas eagerly cost more
 * CPU than a short run's whole replay; built lazily, a run pays only for the schemas it uses.
 * It is zod's own `z.lazy`, so parsing, JSON Schema and identity behave as for any schema.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(build);
}
