import type { WorkflowExecutionInfo } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import type { temporal } from '@temporalio/proto';
import { agentNameSearchAttribute, agentSessionWorkflowType, agentStatusSearchAttribute, agentTenantSearchAttribute, runStatusSchema, type RunStatus } from '../contracts';
import { isTerminalRunStatus } from '../contracts/run';
import { encryptionKeyIdKey } from '../config/encryption';
import { AgentClientError, type AgentClient } from './agent-client';
import { listQuery, queryLiteral, tenantClause } from './list-query';

/** One run as the visibility store lists it. */
export interface RunListEntry {
  readonly workflowId: string;
  readonly runId: string;
  readonly agent: string | null;
  /** Whose run it is (AgentTenant, else the memo); absent for a run without a tenant. */
  readonly tenant?: string;
  /**
   * The run's own status (AgentStatus) while it runs and after it completed (so a killed run is
   * `terminated`, not `completed`); Temporal's status in lower case otherwise (failed, reset,
   * continued as new, terminated from outside).
   */
  readonly status: string;
  /** Temporal's execution status (RUNNING, COMPLETED, TERMINATED, …). */
  readonly workflowStatus: string;
  readonly startTime: string;
  readonly closeTime: string | null;
  /**
   * Set when the run's memo is encrypted with a key this process does not have: the entry then
   * holds only what the search attributes say (they are never encrypted).
   */
  readonly encrypted?: { readonly keyId: string };
  /**
   * How many earlier executions of the run this page of the listing folded into the entry (a run
   * that was rewound or continued as new has one execution per time); absent when none.
   */
  readonly earlierExecutions?: number;
}

/** One session as the visibility store lists it. */
export interface SessionListEntry {
  readonly sessionId: string;
  readonly workflowId: string;
  readonly agent: string | null;
  /** Whose session it is; absent for a session without a tenant. */
  readonly tenant?: string;
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

/** The `tenant` field of an entry: AgentTenant, else the memo's (a namespace without the attribute); none without a tenant. */
function tenantField(info: WorkflowExecutionInfo): { tenant?: string } {
  const tenant = info.typedSearchAttributes.get(agentTenantSearchAttribute) ?? info.memo?.tenant;
  return typeof tenant === 'string' ? { tenant } : {};
}

/**
 * The status a listing shows. While the run runs, what it reports. Once its workflow completed,
 * the run's own final status: a kill completes the workflow with status `terminated`, which
 * Temporal lists as COMPLETED. Otherwise (failed, reset, continued as new, terminated or timed
 * out from outside) Temporal's status is the truth, as it is when the run never reported one.
 */
export function listedStatus(workflowStatus: string, reported: string | undefined): string {
  if (reported !== undefined && runStatusSchema.safeParse(reported).success) {
    if (workflowStatus === 'RUNNING') return reported;
    if (workflowStatus === 'COMPLETED' && isTerminalRunStatus(reported)) return reported;
  }
  return workflowStatus.toLowerCase();
}

function runEntry(info: WorkflowExecutionInfo, encrypted?: RunListEntry['encrypted']): RunListEntry {
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    agent: info.typedSearchAttributes.get(agentNameSearchAttribute) ?? memoAgent(info),
    ...tenantField(info),
    status: listedStatus(info.status.name, info.typedSearchAttributes.get(agentStatusSearchAttribute)),
    workflowStatus: info.status.name,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
    ...(encrypted ? { encrypted } : {}),
  };
}

type RawExecution = temporal.api.workflow.v1.IWorkflowExecutionInfo;

/** The key id an encrypted memo field names (`(unknown)` when it names none). */
function memoKeyId(raw: RawExecution): string {
  for (const payload of Object.values(raw.memo?.fields ?? {})) {
    const id = payload.metadata?.[encryptionKeyIdKey];
    if (id) return Buffer.from(id).toString('utf8');
  }
  return '(unknown)';
}

/**
 * One listed execution. A memo this process cannot decode (encrypted with a key it lacks, or
 * encrypted while it has no keys) never fails the listing: the entry is built without the memo
 * and marked with the key id, so one encrypted run does not hide every other run.
 */
async function decodedExecution<T>(agents: AgentClient, raw: RawExecution, toEntry: (info: WorkflowExecutionInfo, encrypted?: RunListEntry['encrypted']) => T): Promise<T> {
  const { client } = agents;
  const decode = (from: RawExecution) => executionInfoFromRaw(from, client.options.loadedDataConverter, from, client.options.namespace);
  try {
    return toEntry(await decode(raw));
  } catch (err) {
    if (!raw.memo?.fields || Object.keys(raw.memo.fields).length === 0) throw err;
    return toEntry(await decode({ ...raw, memo: null }), { keyId: memoKeyId(raw) });
  }
}

function sessionEntry(info: WorkflowExecutionInfo): SessionListEntry {
  return {
    sessionId: info.workflowId.replace(/^session-/, ''),
    workflowId: info.workflowId,
    agent: memoAgent(info),
    ...tenantField(info),
    workflowStatus: info.status.name,
    startTime: info.startTime.toISOString(),
  };
}

/**
 * Executions matching a visibility query, page by page until `limit` entries: the page token
 * of the last page read comes back when more may follow. One entry per workflow id, the first
 * the store lists (open executions come first, then the latest closed): a run that was rewound or
 * continued as new has an execution for each time, and is one run; `withEarlier` tells the entry
 * how many it folded. A later page of the same listing does not know what an earlier one showed.
 *
 * @throws AgentClientError `invalid_input` for a page token this listing did not answer.
 */
async function listPage<T>(
  agents: AgentClient,
  query: string,
  options: ListOptions,
  toEntry: (info: WorkflowExecutionInfo, encrypted?: RunListEntry['encrypted']) => T,
  withEarlier: (entry: T, earlier: number) => T = (entry) => entry,
): Promise<ListPage<T>> {
  const { client } = agents;
  const entries: T[] = [];
  if (options.pageToken !== undefined && !isPageToken(options.pageToken)) throw new AgentClientError('invalid_input', 'pageToken: not a page token of this listing');
  let token: Uint8Array | undefined = options.pageToken ? Buffer.from(options.pageToken.slice(pageTokenPrefix.length), 'base64url') : undefined;
  /** The earlier executions folded into each entry, by the entry's workflow id. */
  const listed = new Map<string, number>();
  while (entries.length < options.limit) {
    const response = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: Math.min(options.limit - entries.length, 1000),
      ...(token ? { nextPageToken: token } : {}),
    });
    for (const raw of response.executions) {
      const workflowId = raw.execution?.workflowId ?? '';
      const earlier = listed.get(workflowId);
      listed.set(workflowId, earlier === undefined ? 0 : earlier + 1);
      if (earlier === undefined) entries.push(await decodedExecution(agents, raw, toEntry));
    }
    token = response.nextPageToken && response.nextPageToken.length > 0 ? response.nextPageToken : undefined;
    if (!token) break;
  }
  const folded = [...listed.values()];
  return { entries: entries.slice(0, options.limit).map((entry, i) => (folded[i] ? withEarlier(entry, folded[i]) : entry)), ...(token ? { nextPageToken: `${pageTokenPrefix}${Buffer.from(token).toString('base64url')}` } : {}) };
}

/** Agent runs (newest first), optionally only of one agent, in one status, of one tenant (search attributes). */
export function listRuns(agents: AgentClient, filter: { readonly agent?: string; readonly status?: RunStatus; readonly tenant?: string }, options: ListOptions): Promise<ListPage<RunListEntry>> {
  return listPage(agents, listQuery(filter), options, runEntry, (entry, earlierExecutions) => ({ ...entry, earlierExecutions }));
}

/** Sessions (newest first), open and closed; only of one tenant with `filter.tenant` (AgentTenant). */
export function listSessions(agents: AgentClient, options: ListOptions, filter: { readonly tenant?: string } = {}): Promise<ListPage<SessionListEntry>> {
  const query = [`WorkflowType = ${queryLiteral(agentSessionWorkflowType)}`, ...(filter.tenant !== undefined ? [tenantClause(filter.tenant)] : [])].join(' AND ');
  return listPage(agents, query, options, sessionEntry);
}

/** Agent runs that are open (Temporal status RUNNING), newest first, with their AgentStatus. */
export function listOpenRuns(agents: AgentClient, options: ListOptions): Promise<ListPage<RunListEntry>> {
  return listPage(agents, `${listQuery({})} AND ExecutionStatus = 'Running'`, options, runEntry);
}
