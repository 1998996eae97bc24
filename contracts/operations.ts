import type { z } from 'zod';
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import {
  budgetChangeSchema,
  interventionReceiptSchema,
  interventionSchema,
  killRequestSchema,
  pauseRequestSchema,
  pauseResultSchema,
  resumeRequestSchema,
  type InterventionReceipt,
  type PauseResult,
} from './control';
import { approvalRulesSchema } from './approval-policy';
import { awaitAnswerSchema, callDecisionSchema, pendingInputsSchema, type PendingInputs } from './hitl';
import { costReportSchema, runStatusReportSchema, type CostReport, type RunStatusReport } from './run';

/**
 * What an operation does: steer a run (`control`), give a run what it waits for from people
 * (`human input`), or drive a session (`session`). The API documents each kind under its tag.
 */
export type OperationKind = 'control' | 'human input' | 'session';

/**
 * One operation as it travels, the protocol's part of its row: the payload it takes (a schema
 * builder, see lazy.ts; none: it takes no payload), what it answers, the signal that sends it
 * without an answer and the update that sends it validated, with one. What the HTTP API adds (its
 * path, role and wording) is server/operations.ts's part of the same row.
 */
export interface OperationRow<Answer = unknown> {
  readonly kind: OperationKind;
  readonly payload?: () => z.ZodType;
  readonly answer?: () => z.ZodType<Answer>;
  readonly signal?: SignalDefinition<[unknown?]> | SignalDefinition<[unknown]> | SignalDefinition<[]>;
  readonly update?: UpdateDefinition<Answer, [unknown]>;
  /**
   * Set when the operation can be routed down a run's tree of sub-agent runs: the field of the
   * tree variant's body that carries the payload (`{ path, <tree>: payload }`).
   */
  readonly tree?: string;
}

/** Whether a row's update answers what its answer's schema parses (else `never`, a compile error at the row). */
type Consistent<R> = R extends { readonly answer: () => infer S extends z.ZodType; readonly update: UpdateDefinition<infer A, [unknown]> }
  ? [z.output<S>] extends [A]
    ? [A] extends [z.output<S>]
      ? R
      : never
    : never
  : R;

/**
 * Declares one row; the identity function, so that TypeScript keeps its literals and checks that
 * its update answers what its answer's schema says.
 */
export function operation<const R extends OperationRow>(row: R & Consistent<R>): R {
  return row;
}

/**
 * Every operation an operator or a UI performs on a run, one row each (see {@link OperationRow}).
 * A signal with bad input becomes a `signal_rejected` event; an update refuses it, naming the
 * field. A payload left out counts as `{}` (`temporal workflow signal --name pause` without
 * `--input` works).
 *
 * The one table the rest derive from: the signal and update definitions (definitions.ts), the
 * workflow's handlers and the order it registers them (workflows/run/run-handlers.ts), the API
 * server's HTTP routes, their tree variants and its WebSocket control messages
 * (server/operations.ts), `AgentClient`'s updates and `signal`, and the readers of recorded
 * histories ({@link runOperationOf}, eval's recogniser in testing/eval/human-inputs.ts). To add an
 * operation, add its row here and its parts where TypeScript then asks for them
 * (docs/internals/operations.md).
 *
 * The order of the rows is part of replay: the run registers the handlers of the `human input`
 * rows, then those of the `control` rows, each in this order, and a signal or update that arrived
 * before the run's first workflow task is delivered when its handler is set. Append new rows.
 */
export const runOperationMessages = {
  /** Answers one item of the open await (see awaitAnswerSchema); the run checks it against the item. */
  answer: operation({
    kind: 'human input',
    payload: awaitAnswerSchema,
    answer: pendingInputsSchema,
    signal: defineSignal<[unknown]>('answer'),
    update: defineUpdate<PendingInputs, [unknown]>('answerAwait'),
    tree: 'answer',
  }),
  /** Decides a call waiting for confirmation (see callDecisionSchema); refused when no such call waits or the edit is invalid. */
  decide: operation({
    kind: 'human input',
    payload: callDecisionSchema,
    answer: pendingInputsSchema,
    signal: defineSignal<[unknown]>('decide'),
    update: defineUpdate<PendingInputs, [unknown]>('decideCall'),
    tree: 'decision',
  }),
  /** `{ reason?, timeoutMs? }`: pause at the next safe point; the update answers once paused, or fails with `pause_timeout`. */
  pause: operation({
    kind: 'control',
    payload: pauseRequestSchema,
    answer: pauseResultSchema,
    signal: defineSignal<[unknown?]>('pause'),
    update: defineUpdate<PauseResult, [unknown]>('pauseRun'),
  }),
  /** `{ reason? }`: resume a paused run; refused when it is not paused. The update answers the new status. */
  resume: operation({
    kind: 'control',
    payload: resumeRequestSchema,
    answer: runStatusReportSchema,
    signal: defineSignal<[unknown?]>('resume'),
    update: defineUpdate<RunStatusReport, [unknown]>('resumeRun'),
  }),
  /** `{ reason? }`: end the run now, cancelling in-flight calls; the update answers once it has ended, with the final status. */
  kill: operation({
    kind: 'control',
    payload: killRequestSchema,
    answer: runStatusReportSchema,
    signal: defineSignal<[unknown?]>('kill'),
    update: defineUpdate<RunStatusReport, [unknown]>('killRun'),
  }),
  /** An intervention (see interventionSchema): `{ kind: 'inject_message', role: 'user', content }` …; the update answers its receipt. */
  intervene: operation({
    kind: 'control',
    payload: interventionSchema,
    answer: interventionReceiptSchema,
    signal: defineSignal<[unknown]>('intervene'),
    update: defineUpdate<InterventionReceipt, [unknown]>('interveneRun'),
  }),
  /** `{ maxToolCalls?, maxIterations?, timeBudgetMs?, … }`: change caps while running; the update answers the new cost report. */
  setBudget: operation({
    kind: 'control',
    payload: budgetChangeSchema,
    answer: costReportSchema,
    signal: defineSignal<[unknown]>('setBudget'),
    update: defineUpdate<CostReport, [unknown]>('setBudgetRun'),
  }),
  /**
   * `{ version, rules }` (contracts/approval-policy.ts): replace the run's approval rules; the calls
   * waiting for a person are judged again under them. The update answers what still waits.
   */
  setApprovalRules: operation({
    kind: 'human input',
    payload: approvalRulesSchema,
    answer: pendingInputsSchema,
    signal: defineSignal<[unknown]>('setApprovalRules'),
    update: defineUpdate<PendingInputs, [unknown]>('setApprovalRulesRun'),
  }),
} as const;

/** The name of an operation on a run: also the name of its signal. */
export type RunOperationName = keyof typeof runOperationMessages;

/** Every operation on a run, in the table's order. */
export const runOperationNames = Object.keys(runOperationMessages) as RunOperationName[];

/** What a caller sends for an operation (its payload schema's input). */
export type RunOperationRequest<N extends RunOperationName> = z.input<ReturnType<(typeof runOperationMessages)[N]['payload']>>;

/** What an operation's update answers. */
export type RunOperationAnswer<N extends RunOperationName> = (typeof runOperationMessages)[N]['update'] extends UpdateDefinition<infer R, [unknown]> ? R : never;

/** The operations on a run that can be routed down its tree of sub-agent runs, with their tree field. */
export type RunTreeOperationName = { [N in RunOperationName]: (typeof runOperationMessages)[N] extends { readonly tree: string } ? N : never }[RunOperationName];

let operationByMessage: ReadonlyMap<string, RunOperationName> | undefined;

/**
 * The operation a signal or update of a run's history carries, by the message's name (its signal's
 * or its update's), or undefined for any other message (queries, internal signals).
 */
export function runOperationOf(messageName: string): RunOperationName | undefined {
  operationByMessage ??= new Map(
    runOperationNames.flatMap((op) => [
      [runOperationMessages[op].signal.name, op] as const,
      [runOperationMessages[op].update.name, op] as const,
    ]),
  );
  return operationByMessage.get(messageName);
}
