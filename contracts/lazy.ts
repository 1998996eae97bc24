/**
 * A schema built on first use. Every workflow execution evaluates the contracts module afresh
 * (the SDK isolates module state per run), and building all of its schemas eagerly cost more
 * CPU than a short run's whole replay; built lazily, a run pays only for the schemas it uses.
 * The proxy forwards every operation to the schema, so callers cannot tell the difference.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let schema: T | undefined;
  const real = (): T => (schema ??= build());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    set: (_, key, value) => Reflect.set(real(), key, value),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      // The proxy's own target is empty and extensible: it may only report configurable properties.
      return descriptor ? { ...descriptor, configurable: true } : undefined;
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
