/**
 * Preloaded once into each reusable workflow context (the bundler's `preloadModules`, see
 * `configureAgentBundler`), so zod is evaluated once per worker thread instead of once per
 * workflow execution, cache-miss replay and continue-as-new: its module graph, the members it
 * installs on every schema class's prototype and the garbage they leave were most of a run's
 * start cost. Schemas themselves are still built by each execution (lazily, contracts/lazy.ts).
 *
 * Right after this module runs, the SDK deep-freezes every preloaded module and the context's
 * globals, zod's global config (`globalThis.__zod_globalConfig`) among them. zod fills that
 * config on first use (the default locale on the first schema, the memoizer on the first
 * container), so that first use has to happen here; a schema of each common kind, parsed once
 * with and once without an issue, covers every lazy write zod makes. Workflow code can no longer
 * call `z.config(...)` (the config object is frozen): bundle without sharing zod to do that. zod's
 * global registry (`.describe()`, `.meta()`) is created here too, so it is one per worker thread:
 * its metadata is keyed by schema (a WeakMap), so executions do not see each other's entries.
 */
import { z } from 'zod';

// No compiled fast paths for object schemas: the sandbox builds its schemas afresh for every
// execution, so each object schema a run parses would compile a parser of its own with
// `new Function`, used a few times at most, and keep it for the run's life.
z.config({ jitless: true });

const warmUp = z.object({
  text: z.string().min(1),
  count: z.number().int().optional(),
  items: z.array(z.union([z.literal('a'), z.boolean()])),
  tagged: z.discriminatedUnion('type', [z.object({ type: z.literal('x') }), z.object({ type: z.literal('y'), at: z.string() })]),
  record: z.record(z.string(), z.lazy(() => z.unknown())),
});
warmUp.safeParse({ text: 'x', items: ['a', true], tagged: { type: 'x' }, record: { k: 1 } });
warmUp.safeParse({ text: '', items: [1], tagged: { type: 'z' }, record: null });
z.fromJSONSchema({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }).safeParse({ q: 'x' });
