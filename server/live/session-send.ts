/**
 * What the session front ends (the AI SDK chat and AG-UI over a session) do with the session:
 * send a user message, opening the session with the request's agent when it is not open, and find
 * the run a steered message got when the run it went into ended before taking it.
 */
import type { SessionMessage, SessionRunRecord } from '../../contracts/session';
import { AgentClientError } from '../../client/errors';
import { checkAgentName, type ServerContext } from '../context';
import { ApiError } from '../errors';
import { busyWith, requeuedRun } from './session-chat-plan';

/** How often, and how long apart, a steered message's response looks for the run the session gave it. */
const requeueLooks = 50;
const requeueLookMs = 200;

/**
 * Sends `message` to session `sessionId`, opening it with `agent` when given and the session is
 * not open (update-with-start). `whenBusy: reject` while a run is active is 409 `session_busy`
 * naming the run; a session that is not open, with no agent to open it, is 404 saying how to open
 * it (`agentField`: where the request names the agent).
 */
export async function sendSessionMessage(ctx: ServerContext, sessionId: string, message: SessionMessage, agent: string | undefined, agentField: string): Promise<SessionRunRecord> {
  const { agents } = ctx;
  try {
    if (agent === undefined) return await agents.sendMessage(sessionId, message);
    checkAgentName(ctx, agent, agentField);
    return await agents.sendMessage(sessionId, message, { open: { agent } });
  } catch (err) {
    if (err instanceof AgentClientError && err.type === 'run_not_found' && agent === undefined) {
      throw new ApiError('run_not_found', `session ${sessionId} is not open: name its agent (${agentField}) to open it with this message, or open it first with POST /api/sessions`);
    }
    if (!(err instanceof AgentClientError) || err.type !== 'rejected') throw err;
    const report = await agents
      .session(sessionId)
      .status()
      .catch(() => undefined);
    const active = report && busyWith(report, message.whenBusy);
    if (!active) throw err;
    throw new ApiError('session_busy', `session ${sessionId} is busy with run ${active.workflowId} (run ${active.runNumber}) and the message was refused (whenBusy: reject): nothing was queued`);
  }
}

/**
 * The run session `sessionId` gave steered message `messageId` after the run it went into ended
 * without taking it: asked until the session has queued it (it does so when it sees that run's
 * end, a moment after the run's feed ends), for about 10 s at most.
 */
export async function waitForRequeuedRun(ctx: ServerContext, sessionId: string, messageId: string): Promise<SessionRunRecord | undefined> {
  for (let look = 0; look < requeueLooks; look++) {
    const record = requeuedRun((await ctx.agents.session(sessionId).status()).runs, messageId);
    if (record) return record;
    await new Promise((resolve) => setTimeout(resolve, requeueLookMs));
  }
  return undefined;
}
