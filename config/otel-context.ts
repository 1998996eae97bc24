import { AsyncLocalStorage } from 'node:async_hooks';
import { context, propagation, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * An OpenTelemetry context manager over Node's AsyncLocalStorage: the active span follows
 * awaits, so an activity sees the span Temporal's interceptor opened for it.
 */
class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => this.with(ctx, () => fn(...args))) as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}

let installed = false;

/**
 * Makes sure this process has what trace propagation across Temporal needs: a context manager
 * (so spans nest across awaits) and the W3C trace-context propagator (so a span's context
 * travels in workflow and activity headers). Whatever the application registered already (an
 * OpenTelemetry SDK) stays: the API keeps the first registration.
 */
export function ensureOtelGlobals(): void {
  if (installed) return;
  installed = true;
  // Both return false (and change nothing) when the application set its own.
  context.setGlobalContextManager(new AsyncLocalContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}
