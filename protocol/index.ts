/**
 * `durable-agents/protocol`: the wire of agent runs, for code that talks to them without
 * {@link AgentClient} (a Temporal client of your own, another service, a validator at an HTTP
 * edge): the workflow types, the signal, update and query definitions, the search attributes,
 * and the zod schemas of what crosses them. Their TypeScript types are exported by
 * `durable-agents/client` (`RunInput`, `RunStatusReport`, `RunEvent`, …) and
 * `durable-agents/workflow` (`Message`, `PlanResult`, …).
 *
 * It loads no native module. (Workflow code does not import it: it parses with the contracts'
 * builders, see contracts/schemas.ts.)
 *
 * @example
 * import { Client } from '@temporalio/client';
 * import { agentRunWorkflowType, runInputSchema, statusQuery } from 'durable-agents/protocol';
 * declare const client: Client;
 * const input = runInputSchema.parse({ agent: 'notes', messages: [{ role: 'user', content: 'Note: buy milk' }] });
 * const handle = await client.workflow.start(agentRunWorkflowType, { taskQueue: 'notes', workflowId: 'notes-1', args: [input] });
 * console.log((await handle.query(statusQuery)).status);
 */
// One folder of its own, re-exporting from contracts/: contracts/index.ts is the internal barrel
// (activity names, payload limits, builders the workflow and the activities share), and the
// public wire is a choice made here, name by name.
export {
  agentRunWorkflowType,
  statusQuery,
  eventsQuery,
  transcriptQuery,
  pendingInputsQuery,
  pauseSignal,
  resumeSignal,
  interveneSignal,
  killSignal,
  setBudgetSignal,
  answerSignal,
  decideSignal,
  pauseUpdate,
  resumeUpdate,
  interveneUpdate,
  killUpdate,
  setBudgetUpdate,
  waitForEventsUpdate,
  answerAwaitUpdate,
  decideCallUpdate,
} from '../contracts/definitions';
export { runOperationMessages, type RunOperationName } from '../contracts/operations';
export { agentSessionWorkflowType, sendMessageUpdate, sessionQuery, closeSessionSignal } from '../contracts/session';
export { agentNameSearchAttribute, agentStatusSearchAttribute, agentTenantSearchAttribute } from '../contracts/search-attributes';
export { tenantIdSchema } from '../contracts/tenant';
export {
  jsonValueSchema,
  jsonObjectSchema,
  messageSchema,
  inputMessageSchema,
  messageToolCallSchema,
  retryReasonSchema,
  retryHintSchema,
  toolErrorTypeSchema,
  toolErrorSchema,
  toolCallSchema,
  toolRequestSchema,
  toolOutputSchema,
  finalizeReasonSchema,
  terminationSchema,
  awaitItemSchema,
  awaitSchema,
  finalResponseSchema,
  runPolicySchema,
  runInputSchema,
  runStatusSchema,
  budgetLineSchema,
  costReportSchema,
  priceTableSchema,
  runResultSchema,
  runStatusReportSchema,
  childRunSchema,
  runEventSchema,
  eventPageSchema,
  awaitAnswerSchema,
  callDecisionSchema,
  confirmationPolicySchema,
  pendingInputsSchema,
  interventionPointSchema,
  pauseRequestSchema,
  resumeRequestSchema,
  killRequestSchema,
  budgetChangeSchema,
  interventionSchema,
  pauseResultSchema,
  interventionReceiptSchema,
  waitForEventsRequestSchema,
  sessionInputSchema,
  sessionMessageSchema,
  sessionReportSchema,
} from '../contracts/schemas';
