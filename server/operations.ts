import type { z } from 'zod';
import type { AgentClient } from '../client/agent-client';
import { lazySchema } from '../contracts/lazy';
import { runOperationMessages, type OperationKind, type OperationRow, type RunOperationName } from '../contracts/operations';
import { sessionOperationMessages, type SessionOperationName } from '../contracts/session';
import type { Access, Principal } from './auth';

/** The parsed payload of a row (undefined for an operation that takes none). */
type PayloadOf<R> = R extends { readonly payload: () => infer S extends z.ZodType } ? z.output<S> : undefined;

/**
 * The HTTP part of one row of an operations table (contracts/operations.ts holds the protocol's
 * part): its route `POST <resource>/:id/<path>`, the role it needs, its wording in the OpenAPI
 * document and the client call it makes. A row with a tree variant needs the tree route's wording.
 */
export type OperationHttp<R extends OperationRow> = {
  /** The route under the resource (`/api/runs/:id/`, `/api/sessions/:id/`). */
  readonly path: string;
  readonly access: Access;
  readonly summary: string;
  readonly description?: string;
  /** 204: the route answers nothing. */
  readonly status?: 204;
  /** Body fields a request header gives when the body has none: field → header (e.g. `messageId` → `Idempotency-Key`). */
  readonly fromHeaders?: Readonly<Record<string, string>>;
  /** Sends the operation with the client (`id`: the run's workflow id, or the session id). */
  perform(agents: AgentClient, id: string, body: PayloadOf<R>, principal: Principal): Promise<unknown>;
} & (R extends { readonly tree: string } ? { readonly tree: { readonly summary: string } } : { readonly tree?: never });

/**
 * The HTTP parts of a whole table, one per row: a row without its part, or a part without its
 * row, does not compile. Routes are listed in the order of these parts.
 */
export type HttpParts<T extends Readonly<Record<string, OperationRow>>> = { readonly [N in keyof T]: OperationHttp<T[N]> };

/**
 * One thing an operator or a UI can do, as the API serves it: the protocol's row and its HTTP part
 * in one. The HTTP routes (`POST /api/runs/:id/<path>`), their tree variants
 * (`POST /api/runs/:id/tree/<path>`) and the WebSocket control messages (`{ type: <name>, ...payload }`)
 * are all derived from it, so they take the same payloads, need the same role and make the same
 * {@link AgentClient} call. A run operation's name is its signal's (what
 * `temporal workflow signal --name <name>` sends); the client sends the validated update.
 */
export interface Operation<N extends string = string, B extends z.ZodType | undefined = z.ZodType | undefined> {
  /** The name in its table: a run operation's WebSocket message type and signal name. */
  readonly name: N;
  /** The HTTP route under the resource. */
  readonly path: string;
  readonly access: Access;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /** The payload, parsed once here at the edge (and once more in the workflow); none: the operation takes none. */
  readonly body: B;
  readonly response?: z.ZodType;
  readonly status?: 204;
  /** Body fields a request header gives when the body has none (see {@link OperationHttp}). */
  readonly fromHeaders?: Readonly<Record<string, string>>;
  /** The workflow's own definitions of the operation, from the protocol's table. */
  readonly signal?: { readonly name: string };
  readonly update?: { readonly name: string };
  /** Its tree variant: the body's field that carries the payload, and the route's summary. */
  readonly tree?: { readonly field: string; readonly summary: string };
  perform(agents: AgentClient, id: string, body: B extends z.ZodType ? z.output<B> : undefined, principal: Principal): Promise<unknown>;
}

/** An operation on a run: every one takes a payload and has a signal and an update. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RunOperation = Operation<RunOperationName, z.ZodType<any>> & { readonly response: z.ZodType; readonly signal: { readonly name: string }; readonly update: { readonly name: string } };

/** An operation with its payload type erased, for tables. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<string, any>;

/** The OpenAPI tags of each kind of operation. */
const kindTags: Readonly<Record<OperationKind, readonly string[]>> = {
  control: ['control'],
  'human input': ['human inputs'],
  session: ['sessions'],
};

/** The operations of a table: each row with its HTTP part, in the order of the parts. */
export function operationsOf<T extends Readonly<Record<string, OperationRow>>>(rows: T, http: HttpParts<T>): Operation<keyof T & string>[] {
  return (Object.keys(http) as (keyof T & string)[]).map((name) => {
    const row = rows[name] as OperationRow;
    const part = http[name] as Omit<OperationHttp<OperationRow>, 'tree'> & { readonly tree?: { readonly summary: string } };
    return {
      name,
      path: part.path,
      access: part.access,
      summary: part.summary,
      ...(part.description !== undefined ? { description: part.description } : {}),
      tags: kindTags[row.kind],
      body: row.payload ? lazySchema(row.payload) : undefined,
      ...(row.answer ? { response: lazySchema(row.answer) } : {}),
      ...(part.status !== undefined ? { status: part.status } : {}),
      ...(part.fromHeaders !== undefined ? { fromHeaders: part.fromHeaders } : {}),
      ...(row.signal ? { signal: row.signal } : {}),
      ...(row.update ? { update: row.update } : {}),
      ...(row.tree !== undefined && part.tree ? { tree: { field: row.tree, summary: part.tree.summary } } : {}),
      perform: part.perform as AnyOperation['perform'],
    };
  });
}

/** The HTTP part of every operation on a run, in the order the API documents them. */
export const runOperationsHttp: HttpParts<typeof runOperationMessages> = {
  pause: {
    path: 'pause',
    access: 'operator',
    summary: 'Pause a run at its next safe point; answers once paused',
    perform: (agents, id, body) => agents.pause(id, body),
  },
  resume: {
    path: 'resume',
    access: 'operator',
    summary: 'Resume a paused run; answers its new status',
    perform: (agents, id, body) => agents.resume(id, body.reason),
  },
  kill: {
    path: 'kill',
    access: 'admin',
    summary: 'End a run now, cancelling its in-flight calls; answers once it has ended',
    perform: (agents, id, body) => agents.kill(id, body),
  },
  intervene: {
    path: 'interventions',
    access: 'operator',
    summary: 'Apply or queue an intervention (inject a message, edit or drop a call, block a tool, set a breakpoint, …)',
    perform: (agents, id, body) => agents.intervene(id, body),
  },
  setBudget: {
    path: 'budget',
    access: 'operator',
    summary: "Change a run's caps while it runs; answers the new cost report",
    perform: (agents, id, body) => agents.setBudget(id, body),
  },
  setApprovalRules: {
    path: 'approval-rules',
    access: 'operator',
    summary: "Replace a run's approval rules; the calls waiting for a person are judged again under them; answers what still waits",
    perform: (agents, id, body) => agents.setApprovalRules(id, body),
  },
  decide: {
    path: 'decisions',
    access: 'operator',
    summary: 'Approve, reject, edit or replace a call waiting for confirmation',
    description: "`by` defaults to the token holder's name. Answers what still waits.",
    perform: (agents, id, body, principal) => agents.decide(id, { ...body, by: body.by ?? principal.name }),
    tree: { summary: 'Decide a call of a sub-agent run: routed to the run at `path` under this one' },
  },
  answer: {
    path: 'answers',
    access: 'operator',
    summary: 'Answer one item of the open await (clarification, questions, external tool results)',
    description: 'The run checks the answer against the item; answers what still waits.',
    perform: (agents, id, body) => agents.answer(id, body),
    tree: { summary: 'Answer an await item of a sub-agent run: routed to the run at `path` under this one' },
  },
};

/** The HTTP part of every operation on a session (`POST /api/sessions/:id/<path>`). */
export const sessionOperationsHttp: HttpParts<typeof sessionOperationMessages> = {
  sendMessage: {
    path: 'messages',
    access: 'operator',
    summary: 'Queue the next user message of a session; answers the run that will handle it',
    description:
      'A message whose `messageId` (or, without one, `Idempotency-Key` header) the session took already is not queued again: the answer is the run that took it. ' +
      'Without either the session gives the message its own id, `m-<runNumber>`.',
    fromHeaders: { messageId: 'Idempotency-Key' },
    perform: (agents, id, body) => agents.sendMessage(id, body),
  },
  close: {
    path: 'close',
    access: 'operator',
    summary: 'Close a session after its queued runs',
    status: 204,
    perform: (agents, id) => agents.closeSession(id),
  },
  editQueue: {
    path: 'queue',
    access: 'operator',
    summary: 'Edit, drop or move to the front a message that waits for its run; answers the queue, next first',
    description: '`{ action: "edit" | "drop" | "front", messageId, … }`. A message that does not wait in the queue (it runs, ran or was dropped) is refused (422), naming it.',
    perform: (agents, id, body) => agents.session(id).editQueue(body),
  },
};

/** Every operation on a run, in the order the API documents them. */
export const runOperations = operationsOf(runOperationMessages, runOperationsHttp) as RunOperation[];

/** Every operation on a run, by name. */
export const runOperationsByName = Object.fromEntries(runOperations.map((op) => [op.name, op])) as { readonly [N in RunOperationName]: RunOperation };

/** Every operation on a session, in the order the API documents them. */
export const sessionOperations: readonly Operation<SessionOperationName>[] = operationsOf(sessionOperationMessages, sessionOperationsHttp);
