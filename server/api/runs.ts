import type { ServerContext } from '../context';
import type { AnyRoute } from '../routes';

/** The control API of runs (skeleton: filled in by the runs API). */
export function runRoutes(_ctx: ServerContext): AnyRoute[] {
  return [];
}
