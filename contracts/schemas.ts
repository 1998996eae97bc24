/**
 * The contracts as zod schemas, for code outside workflows: clients, activities, servers and
 * tests. Each is a `z.lazy` around the contract module's builder (contracts/lazy.ts), so it is
 * built on first use and is the same schema the workflow parses with.
 *
 * Workflow code does not import this module (ESLint enforces it): the SDK evaluates a workflow
 * bundle's modules for every execution, and these wrappers would cost every run's start and
 * heap. It calls the builders of the contract modules instead.
 */
import { lazySchema } from './lazy';
import * as json from './json';
import * as tools from './tools';
import * as mcp from './mcp';
import * as messages from './messages';
import * as plan from './plan';
import * as run from './run';
import * as events from './events';
import * as hitl from './hitl';
import * as points from './points';
import * as control from './control';
import * as session from './session';
import * as carriedState from './carried-state';
import * as pricing from './pricing';

/** Schema for `JsonValue`; rejects undefined, functions, Maps, Dates and class instances. */
export const jsonValueSchema = lazySchema(json.jsonValueSchema);
/** A JSON object (string keys, JSON values). */
export const jsonObjectSchema = lazySchema(json.jsonObjectSchema);

/** Why a tool call failed, in words a planner (and a model) can act on. */
export const retryReasonSchema = lazySchema(tools.retryReasonSchema);
/** Structured recovery guidance attached to a failed tool call. */
export const retryHintSchema = lazySchema(tools.retryHintSchema);
/** Closed set of tool error types. */
export const toolErrorTypeSchema = lazySchema(tools.toolErrorTypeSchema);
/** A structured tool failure. */
export const toolErrorSchema = lazySchema(tools.toolErrorSchema);
/** Execution metrics of one tool call. */
export const toolTelemetrySchema = lazySchema(tools.toolTelemetrySchema);
/** A tool call requested by a planner. */
export const toolCallSchema = lazySchema(tools.toolCallSchema);
/** A tool call as scheduled by the runtime: the call plus its correlation ids. */
export const toolRequestSchema = lazySchema(tools.toolRequestSchema);
/** One executed (or refused) tool call in a workflow-safe form: what planners see on resume. */
export const toolOutputSchema = lazySchema(tools.toolOutputSchema);
/** Input of a tool activity. */
export const toolActivityInputSchema = lazySchema(tools.toolActivityInputSchema);
/** What a tool activity returns to the workflow. */
export const toolActivityResultSchema = lazySchema(tools.toolActivityResultSchema);
/** Details carried by a tool's ApplicationFailure so the workflow can rebuild a RetryHint. */
export const toolFailureDetailsSchema = lazySchema(tools.toolFailureDetailsSchema);
/** A write-once output path: dot-separated names such as `report.summary`. */
export const outputPathSchema = lazySchema(tools.outputPathSchema);
/** A tool call the model activity reports while the model is still streaming (early dispatch). */
export const earlyToolCallSchema = lazySchema(tools.earlyToolCallSchema);
/** What a written output path holds: the call that wrote it and its result. */
export const writtenOutputSchema = lazySchema(tools.writtenOutputSchema);
/** The output of a call another call depends on, as its tool receives it. */
export const dependencyOutputSchema = lazySchema(tools.dependencyOutputSchema);

/** One tool of an MCP server as a run knows it: what the model is told and what the server is asked. */
export const mcpToolSpecSchema = lazySchema(mcp.mcpToolSpecSchema);
/** A toolset's tool list as one run uses it: fetched by an activity (so replay sees the same list), kept in run state and carried across continue-as-new. */
export const toolsetSnapshotSchema = lazySchema(mcp.toolsetSnapshotSchema);
/** Input of the `mcp.listTools` activity. */
export const mcpListToolsInputSchema = lazySchema(mcp.mcpListToolsInputSchema);
/** What `mcp.listTools` returns: the filtered list, the version of the server's whole list, and how many tools the server has. */
export const mcpListToolsResultSchema = lazySchema(mcp.mcpListToolsResultSchema);
/** Input of `mcp.callTool`: a tool activity's input plus which server tool to call. */
export const mcpCallToolInputSchema = lazySchema(mcp.mcpCallToolInputSchema);

/** One conversation message. */
export const messageSchema = lazySchema(messages.messageSchema);
/** Messages a caller may put in a run's input. */
export const inputMessageSchema = lazySchema(messages.inputMessageSchema);
/** A tool call as it appears in an assistant message. */
export const messageToolCallSchema = lazySchema(messages.messageToolCallSchema);

/** Why the runtime forced a final planner turn. */
export const finalizeReasonSchema = lazySchema(plan.finalizeReasonSchema);
/** A runtime-initiated finalize request passed to the planner's last turn. */
export const terminationSchema = lazySchema(plan.terminationSchema);
/** A planner annotation surfaced to subscribers as a `note` event. */
export const plannerNoteSchema = lazySchema(plan.plannerNoteSchema);
/** One item of an await barrier. */
export const awaitItemSchema = lazySchema(plan.awaitItemSchema);
/** A barrier: the run waits once for all items, in order. */
export const awaitSchema = lazySchema(plan.awaitSchema);
/** The assistant's final answer. */
export const finalResponseSchema = lazySchema(plan.finalResponseSchema);
/** A planner's decision for the next step: run tool calls, finish with a final response, or wait for external input. */
export const planResultSchema = lazySchema(plan.planResultSchema);

/** Caps and execution policy of a run. */
export const runPolicySchema = lazySchema(run.runPolicySchema);
/** Input of the `agentRun` workflow. */
export const runInputSchema = lazySchema(run.runInputSchema);
/** Lifecycle states of a run. */
export const runStatusSchema = lazySchema(run.runStatusSchema);
/** Used / max / remaining of one budget. */
export const budgetLineSchema = lazySchema(run.budgetLineSchema);
/** What a run has consumed against each budget. */
export const costReportSchema = lazySchema(run.costReportSchema);
/** A price table of model calls (`model.prices` of the plugin): one currency, prices per million tokens by model. */
export const priceTableSchema = lazySchema(pricing.priceTableSchema);
/** Output of the `agentRun` workflow. */
export const runResultSchema = lazySchema(run.runResultSchema);
/** A snapshot of a run for status queries. */
export const runStatusReportSchema = lazySchema(run.runStatusReportSchema);
/** A sub-agent run, as its parent knows it. */
export const childRunSchema = lazySchema(run.childRunSchema);

/** One entry of a run's event log. */
export const runEventSchema = lazySchema(events.runEventSchema);
/** A page of events returned by the events query. */
export const eventPageSchema = lazySchema(events.eventPageSchema);
/** Arguments of the events query. */
export const eventsQueryArgsSchema = lazySchema(events.eventsQueryArgsSchema);

/** An answer to one await item. */
export const awaitAnswerSchema = lazySchema(hitl.awaitAnswerSchema);
/** A human decision on a tool call that waits for confirmation. */
export const callDecisionSchema = lazySchema(hitl.callDecisionSchema);
/** Per-run confirmation policy, on top of tools flagged `requiresConfirmation`. */
export const confirmationPolicySchema = lazySchema(hitl.confirmationPolicySchema);
/** Everything a run waits on from humans right now, for UIs and ops tools. */
export const pendingInputsSchema = lazySchema(hitl.pendingInputsSchema);

/** Points of a run where operators and agent hooks can act (seed 000). */
export const interventionPointSchema = lazySchema(points.interventionPointSchema);

/** Payload of the pause signal / update. */
export const pauseRequestSchema = lazySchema(control.pauseRequestSchema);
/** Payload of the resume signal / update. */
export const resumeRequestSchema = lazySchema(control.resumeRequestSchema);
/** Payload of the kill signal / update. */
export const killRequestSchema = lazySchema(control.killRequestSchema);
/** Payload of setBudget: new caps; omitted caps keep their value. */
export const budgetChangeSchema = lazySchema(control.budgetChangeSchema);
/** One operator intervention. */
export const interventionSchema = lazySchema(control.interventionSchema);
/** What the pause update answers once the run is paused. */
export const pauseResultSchema = lazySchema(control.pauseResultSchema);
/** What the intervene update answers. */
export const interventionReceiptSchema = lazySchema(control.interventionReceiptSchema);
/** Arguments of the events long-poll update. */
export const waitForEventsRequestSchema = lazySchema(control.waitForEventsRequestSchema);

/** Input of the session workflow; also what it carries across continue-as-new. */
export const sessionInputSchema = lazySchema(session.sessionInputSchema);
/** Payload of sendMessage: the next user turn of the conversation. */
export const sessionMessageSchema = lazySchema(session.sessionMessageSchema);
/** A snapshot of a session. */
export const sessionReportSchema = lazySchema(session.sessionReportSchema);

/** Everything a run carries into its next execution when it continues as new at a turn boundary: the conversation, budgets used, control and session state, and the tail of the event log, so clients see one run with one gap-free event sequence. */
export const carriedRunStateSchema = lazySchema(carriedState.carriedRunStateSchema);
