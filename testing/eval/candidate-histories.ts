import type { AgentClient } from '../../client/agent-client';
import type { RunInput } from '../../contracts';
import { readExecution, type RecordedExecution } from './execution';
import { recordingOfChain, type Recording } from './recording';
import { decodeHistoryJson } from './history-codecs';

/** A history exported by the client, decoded by the client's own payload codecs. */
function decoded(agents: AgentClient, json: string): Promise<unknown> {
  return decodeHistoryJson(JSON.parse(json) as unknown, agents.client.options.loadedDataConverter.payloadCodecs);
}

/** One execution's history as the client reads it (default the latest). */
async function exported(agents: AgentClient, workflowId: string, runId?: string): Promise<unknown> {
  return decoded(agents, await agents.exportHistory(workflowId, runId));
}

/** A candidate run (or one of its sub-agent runs) read back from all its executions, as the recording was read. */
export async function readCandidate(agents: AgentClient, workflowId: string): Promise<Recording> {
  const executions: RecordedExecution[] = [];
  for (const { json } of await agents.exportExecutions(workflowId)) executions.push(readExecution(await decoded(agents, json), workflowId));
  return recordingOfChain(executions);
}

/** The input a run was started with (its first execution's); undefined when there is no such run. */
export async function startInput(agents: AgentClient, workflowId: string): Promise<RunInput | undefined> {
  try {
    const latest = readExecution(await exported(agents, workflowId), workflowId);
    if (!latest.continuedFrom) return latest.input;
    return readExecution(await exported(agents, workflowId, latest.firstRunId), workflowId).input;
  } catch {
    return undefined;
  }
}
