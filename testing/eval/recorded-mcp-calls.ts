import { ApplicationFailure, type Context as ActivityContext } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { describeIssues, jsonByteLength, mcpCallToolActivityName, resolveToolActivityInput, type JsonValue, type ToolActivityResult } from '../../contracts';
import { mcpCallToolInputSchema } from '../../contracts/schemas';
import type { ToolFailure } from '../../activities/tool-implementation';
import { notRecorded, type AnswerRouter } from './recorded-tools';

/** The failure a `ToolFailure` of the recording's answer becomes, as the worker's tool activities make it. */
function failure(err: ToolFailure): ApplicationFailure {
  return ApplicationFailure.create({ message: err.message, type: err.type, nonRetryable: true, details: [{ retryHint: err.retryHint }] });
}

/**
 * Answers a candidate's MCP calls (`mcp.callTool`) from the recording, as recorded tools answer
 * the agents' own tools: matched by the run's tool name (prefix included) and arguments, the
 * recorded result or error; a call the recording cannot answer fails as "not recorded" and is
 * listed in the run's `unrecorded`. The server is never called, so nothing with a side effect
 * runs. Listing (`mcp.listTools`) is left to the worker's MCP servers.
 */
async function answerMcpCall(ctx: ActivityContext, raw: unknown, router: AnswerRouter): Promise<ToolActivityResult> {
  const parsed = mcpCallToolInputSchema.safeParse(raw);
  if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid mcp.callTool input: ${describeIssues(parsed.error)}`, 'invalid_input');
  const { request } = resolveToolActivityInput(parsed.data, ctx.info);
  const name = request.name;
  const answers = await router.answersOf(ctx.info.workflowExecution?.workflowId ?? '');
  if (!answers) throw failure(notRecorded(name, '(the call belongs to no run being evaluated)'));
  const outcome = answers.take(name, request.args);
  if (outcome) {
    answers.answered++;
    if (outcome.kind === 'ok') return { result: outcome.result, resultBytes: jsonByteLength(outcome.result), attempt: ctx.info.attempt };
    if (outcome.kind === 'error') throw ApplicationFailure.create({ message: outcome.message, type: outcome.type ?? 'mcp_tool_error', nonRetryable: true });
    throw failure(notRecorded(name, `(${outcome.reason})`));
  }
  const { path, noRecording } = answers.where;
  const reason = noRecording ?? 'no recorded call of this tool with these arguments';
  answers.unrecorded.push({ kind: 'tool', turn: request.turn, name, args: request.args as JsonValue, reason, ...(path?.length ? { path } : {}) });
  throw failure(notRecorded(name, noRecording ? `(${noRecording})` : 'with these arguments (the recording has no such call)'));
}

/** A worker interceptor that answers `mcp.callTool` from the recordings (see {@link answerMcpCall}); other activities run as they are. */
export function recordedMcpCalls(router: AnswerRouter): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      execute: (input, next) => (ctx.info.activityType === mcpCallToolActivityName ? answerMcpCall(ctx, input.args[0], router) : next(input)),
    },
  });
}
