import type { AgentClient } from '../../client/agent-client';
import type { RunInput } from '../../contracts';
import { readExecution, type RecordedExecution } from './execution';
import { recordingOfChain, type Recording } from './recording';
import { decodeHistoryJson } from './history-codecs';

/** One execution's history as the client reads it: exported, then decoded by the client's own payload codecs. */
async function exported(agents: AgentClient, workflowId: string, runId?: string): Promise<unknown> {
  const json = JSON.parse(await agents.exportHistory(workflowId, runId)) as unknown;
  return decodeHistoryJson(json, agents.client.options.loadedDataConverter.payloadCodecs);
}

/** Every execution of a run, first to last: the latest, then each one it continued from (one export each). */
export async function exportExecutions(agents: AgentClient, workflowId: string): Promise<RecordedExecution[]> {
  const chain: RecordedExecution[] = [];
  let runId: string | undefined;
  do {
    const execution = readExecution(await exported(agents, workflowId, runId), workflowId);
    chain.unshift(execution);
    runId = execution.continuedFrom;
  } while (runId);
  return chain;
}

/** A candidate run (or one of its sub-agent runs) read back from its histories, as the recording was read. */
export async function readCandidate(agents: AgentClient, workflowId: string): Promise<Recording> {
  return recordingOfChain(await exportExecutions(agents, workflowId));
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
