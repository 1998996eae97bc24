import type { WorkflowExecutionInfo } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import { agentNameSearchAttribute, agentSessionWorkflowType, agentStatusSearchAttribute, type RunStatus } from '../contracts';
import { AgentClientError, type AgentClient } from './agent-client';
import { listQuery, queryLiteral } from './list-query';

/** One run as the visibility store lists it. */
export interface RunListEntry {
  readonly workflowId: string;
  readonly runId: string;
  readonly agent: string | null;
  /** AgentStatus as the run reports it while it runs; the workflow status once it has closed. */
  readonly status: string;
  /** Temporal's execution status (RUNNING, COMPLETED, TERMINATED, …). */
  readonly workflowStatus: string;
  readonly startTime: string;
  readonly closeTime: string | null;
}

/** One session as the visibility store lists it. */
export interface SessionListEntry {
  readonly sessionId: string;
  readonly workflowId: string;
  readonly agent: string | null;
  /** Temporal's execution status: RUNNING while the session is open. */
  readonly workflowStatus: string;
  readonly startTime: string;
}

const pageTokenPrefix = 'p1.';

/** Whether `token` is a page token as {@link listRuns} and {@link listSessions} answer them. */
export function isPageToken(token: string): boolean {
  return token.startsWith(pageTokenPrefix) && /^[A-Za-z0-9_-]+$/.test(token.slice(pageTokenPrefix.length));
}

/** A page of a listing; `nextPageToken` (opaque) continues it. */
export interface ListPage<T> {
  readonly entries: T[];
  readonly nextPageToken?: string;
}

/** Options of a listing: at most `limit` entries (newest first), from `pageToken` on. */
export interface ListOptions {
  readonly limit: number;
  readonly pageToken?: string;
}

function memoAgent(info: WorkflowExecutionInfo): string | null {
  const agent = info.memo?.agent;
  return typeof agent === 'string' ? agent : null;
}

function runEntry(info: WorkflowExecutionInfo): RunListEntry {
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    agent: info.typedSearchAttributes.get(agentNameSearchAttribute) ?? memoAgent(info),
    // The run's own status only while it runs: once closed (completed, reset, continued as new,
    // terminated), Temporal's status is the truth.
    status: (info.status.name === 'RUNNING' ? info.typedSearchAttributes.get(agentStatusSearchAttribute) : undefined) ?? info.status.name.toLowerCase(),
    workflowStatus: info.status.name,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
  };
}

function sessionEntry(info: WorkflowExecutionInfo): SessionListEntry {
  return {
    sessionId: info.workflowId.replace(/^session-/, ''),
    workflowId: info.workflowId,
    agent: memoAgent(info),
    workflowStatus: info.status.name,
    startTime: info.startTime.toISOString(),
  };
}

/**
 * Executions matching a visibility query, page by page until `limit` entries: the page token
 * of the last page read comes back when more may follow.
 *
 * @throws AgentClientError `invalid_input` for a page token this listing did not answer.
 */
async function listPage<T>(agents: AgentClient, query: string, options: ListOptions, toEntry: (info: WorkflowExecutionInfo) => T): Promise<ListPage<T>> {
  const { client } = agents;
  const entries: T[] = [];
  if (options.pageToken !== undefined && !isPageToken(options.pageToken)) throw new AgentClientError('invalid_input', 'pageToken: not a page token of this listing');
  let token: Uint8Array | undefined = options.pageToken ? Buffer.from(options.pageToken.slice(pageTokenPrefix.length), 'base64url') : undefined;
  while (entries.length < options.limit) {
    const response = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: Math.min(options.limit - entries.length, 1000),
      ...(token ? { nextPageToken: token } : {}),
    });
    for (const raw of response.executions) {
      entries.push(toEntry(await executionInfoFromRaw(raw, client.options.loadedDataConverter, raw, client.options.namespace)));
    }
    token = response.nextPageToken && response.nextPageToken.length > 0 ? response.nextPageToken : undefined;
    if (!token) break;
  }
  return { entries: entries.slice(0, options.limit), ...(token ? { nextPageToken: `${pageTokenPrefix}${Buffer.from(token).toString('base64url')}` } : {}) };
}

/** Agent runs (newest first), optionally only of one agent and in one status (search attributes). */
export function listRuns(agents: AgentClient, filter: { readonly agent?: string; readonly status?: RunStatus }, options: ListOptions): Promise<ListPage<RunListEntry>> {
  return listPage(agents, listQuery(filter), options, runEntry);
}

/** Sessions (newest first), open and closed. */
export function listSessions(agents: AgentClient, options: ListOptions): Promise<ListPage<SessionListEntry>> {
  return listPage(agents, `WorkflowType = ${queryLiteral(agentSessionWorkflowType)}`, options, sessionEntry);
}

/** Agent runs that are open (Temporal status RUNNING), newest first, with their AgentStatus. */
export function listOpenRuns(agents: AgentClient, options: ListOptions): Promise<ListPage<RunListEntry>> {
  return listPage(agents, `${listQuery({})} AND ExecutionStatus = 'Running'`, options, runEntry);
}
