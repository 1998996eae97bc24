import type { ServerContext } from '../context';
import type { AnyRoute } from '../routes';

/** The API of sessions (skeleton: filled in by the sessions API). */
export function sessionRoutes(_ctx: ServerContext): AnyRoute[] {
  return [];
}
