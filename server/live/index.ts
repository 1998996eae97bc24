import type { AgentClient } from '../../client/agent-client';
import type { ServerContext } from '../context';
import type { AnyRoute } from '../routes';

/** Live event feeds and token deltas of runs (skeleton). */
export class LiveHub {
  constructor(readonly agents: AgentClient) {}

  /** Stops every feed. */
  async close(): Promise<void> {}
}

/** SSE, UI message stream and delta routes (skeleton). */
export function liveRoutes(_ctx: ServerContext): AnyRoute[] {
  return [];
}
