import type { z } from 'zod';
import type { AgentClient } from '../client/agent-client';
import {
  awaitAnswerSchema,
  budgetChangeSchema,
  callDecisionSchema,
  costReportSchema,
  interventionReceiptSchema,
  interventionSchema,
  killRequestSchema,
  pauseRequestSchema,
  pauseResultSchema,
  pendingInputsSchema,
  resumeRequestSchema,
  runStatusReportSchema,
} from '../contracts';
import { runOperationMessages, type RunOperationName } from '../contracts/operations';
import type { Access, Principal } from './auth';

/**
 * One thing an operator or a UI can do to a run: its name, its payload, who may do it and what
 * it does. The HTTP routes (`POST /api/runs/:id/<path>`) and the WebSocket control messages
 * (`{ type: <name>, ...payload }`) are both derived from {@link runOperations}, so they take the
 * same payloads, need the same role and call the same {@link AgentClient} method. The name is
 * the run's signal of the same operation (what `temporal workflow signal --name <name>` sends);
 * the client sends the validated update.
 */
export interface RunOperation<B extends z.ZodType = z.ZodType> {
  /** The WebSocket message type and the workflow signal's name. */
  readonly name: RunOperationName;
  /** The HTTP route under `/api/runs/:id/`. */
  readonly path: string;
  readonly access: Access;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /** The payload, parsed once here at the edge (and once more in the workflow). */
  readonly body: B;
  readonly response: z.ZodType;
  /** The workflow's own definitions of the operation, from the protocol's table (the signal's name is {@link name}). */
  readonly signal: { readonly name: string };
  readonly update: { readonly name: string };
  perform(agents: AgentClient, workflowId: string, body: z.output<B>, principal: Principal): Promise<unknown>;
}

/** Declares an operation; its signal and update come from the protocol's table (contracts/operations.ts). */
function operation<B extends z.ZodType>(spec: Omit<RunOperation<B>, 'signal' | 'update'>): RunOperation<B> {
  const { signal, update } = runOperationMessages[spec.name];
  return { ...spec, signal, update };
}

const control = ['control'];
const humanInputs = ['human inputs'];

/** An operation with its payload type erased, for the table. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRunOperation = RunOperation<any>;

/** Every operation on a run, in the order the API documents them. */
export const runOperations: readonly AnyRunOperation[] = [
  operation({
    name: 'pause',
    path: 'pause',
    access: 'operator',
    summary: 'Pause a run at its next safe point; answers once paused',
    tags: control,
    body: pauseRequestSchema,
    response: pauseResultSchema,
    perform: (agents, id, body) => agents.pause(id, body),
  }),
  operation({
    name: 'resume',
    path: 'resume',
    access: 'operator',
    summary: 'Resume a paused run; answers its new status',
    tags: control,
    body: resumeRequestSchema,
    response: runStatusReportSchema,
    perform: (agents, id, body) => agents.resume(id, body.reason),
  }),
  operation({
    name: 'kill',
    path: 'kill',
    access: 'admin',
    summary: 'End a run now, cancelling its in-flight calls; answers once it has ended',
    tags: control,
    body: killRequestSchema,
    response: runStatusReportSchema,
    perform: (agents, id, body) => agents.kill(id, body),
  }),
  operation({
    name: 'intervene',
    path: 'interventions',
    access: 'operator',
    summary: 'Apply or queue an intervention (inject a message, edit or drop a call, block a tool, set a breakpoint, …)',
    tags: control,
    body: interventionSchema,
    response: interventionReceiptSchema,
    perform: (agents, id, body) => agents.intervene(id, body),
  }),
  operation({
    name: 'setBudget',
    path: 'budget',
    access: 'operator',
    summary: "Change a run's caps while it runs; answers the new cost report",
    tags: control,
    body: budgetChangeSchema,
    response: costReportSchema,
    perform: (agents, id, body) => agents.setBudget(id, body),
  }),
  operation({
    name: 'decide',
    path: 'decisions',
    access: 'operator',
    summary: 'Approve, reject, edit or replace a call waiting for confirmation',
    description: "`by` defaults to the token holder's name. Answers what still waits.",
    tags: humanInputs,
    body: callDecisionSchema,
    response: pendingInputsSchema,
    perform: (agents, id, body, principal) => agents.decide(id, { ...body, by: body.by ?? principal.name }),
  }),
  operation({
    name: 'answer',
    path: 'answers',
    access: 'operator',
    summary: 'Answer one item of the open await (clarification, questions, external tool results)',
    description: 'The run checks the answer against the item; answers what still waits.',
    tags: humanInputs,
    body: awaitAnswerSchema,
    response: pendingInputsSchema,
    perform: (agents, id, body) => agents.answer(id, body),
  }),
];

/** The operation a WebSocket control message names, if any. */
export function runOperationNamed(name: string): AnyRunOperation | undefined {
  return runOperations.find((op) => op.name === name);
}
