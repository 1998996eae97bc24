import type { SessionInput } from '../contracts';
import { AgentClientError, type AgentClient } from './agent-client';

/**
 * Opens a session, or finds it open already with the same agent (opening is idempotent).
 * Waits for a worker to answer the session query.
 *
 * @returns the session's workflow id.
 * @throws AgentClientError `rejected` when the session is already open with another agent;
 *   `invalid_input` naming the bad field.
 */
export async function openSessionFor(agents: AgentClient, sessionId: string, input: SessionInput): Promise<string> {
  const session = agents.session(sessionId);
  const workflowId = await session.open(input);
  const report = await session.status();
  if (report.agent !== input.agent) throw new AgentClientError('rejected', `session ${sessionId} is already open with agent ${report.agent}`);
  return workflowId;
}
