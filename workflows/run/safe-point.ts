/**
 * Whether a safe point has to wait (it returned a promise) or was passed at once. Safe points
 * are passed at once almost always; awaiting only when they wait saves a promise and a
 * microtask per safe point, several per call.
 */
export function isPending<T>(value: Promise<T> | T): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}
