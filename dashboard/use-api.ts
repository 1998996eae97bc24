import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from './api';

/** What {@link useApi} answers. */
export interface Loaded<T> {
  readonly data?: T;
  readonly error?: string;
  readonly loading: boolean;
  /** Reads again now. */
  reload(): void;
}

/**
 * GETs `path` (again when it changes, and every `refreshMs` when given). A failed read keeps
 * the last good data and says what went wrong. A refresh is skipped while a read is in flight:
 * a read slower than the period (the API waiting for a worker that crashed a moment ago) still
 * lands, instead of being dropped for the next one, and the next, for as long as it is slow.
 */
export function useApi<T>(path: string | undefined, refreshMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const generation = useRef(0);
  const inFlight = useRef(false);

  const reload = useCallback(() => {
    if (!path) return;
    const mine = ++generation.current;
    inFlight.current = true;
    setLoading(true);
    const settle = (): boolean => {
      if (mine !== generation.current) return false;
      inFlight.current = false;
      setLoading(false);
      return true;
    };
    api<T>(path).then(
      (value) => {
        if (!settle()) return;
        setData(value);
        setError(undefined);
      },
      (err: unknown) => {
        if (!settle()) return;
        setError(messageOf(err));
      },
    );
  }, [path]);

  // A new path shows nothing of the old one; a new refresh period keeps what is shown.
  useEffect(() => {
    setData(undefined);
    setError(undefined);
  }, [path]);

  useEffect(() => {
    reload();
    if (!refreshMs) return;
    const timer = setInterval(() => {
      if (!inFlight.current) reload();
    }, refreshMs);
    return () => clearInterval(timer);
  }, [reload, refreshMs]);

  return { data, error, loading, reload };
}

/**
 * Runs an API action and remembers its error: `run(fn)` answers fn's value, or undefined
 * after showing the failure.
 */
export function useAction(): { busy: boolean; error?: string; run<T>(fn: () => Promise<T>): Promise<T | undefined>; clear(): void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await fn();
    } catch (err) {
      setError(messageOf(err));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}
