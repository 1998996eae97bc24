import type { RetryHint, ToolError, ToolOutput, ToolRequest } from '../../contracts/tools';

/**
 * An output that closes a call with an error: refused before dispatch (unknown tool, bad
 * arguments, cap, block, drop, kill) or failed while running.
 */
export function errorOutput(request: ToolRequest, error: ToolError, retryHint?: RetryHint, durationMs = 0): ToolOutput {
  return {
    toolCallId: request.toolCallId,
    name: request.name,
    args: request.args,
    turn: request.turn,
    status: error.type === 'cancelled' ? 'cancelled' : 'error',
    resultBytes: 0,
    error,
    ...(retryHint ? { retryHint } : {}),
    telemetry: { durationMs },
  };
}

/** A successful call's output: the request's identity, `status: ok`, and the given result fields. */
export function okOutput(request: ToolRequest, fields: Omit<ToolOutput, 'toolCallId' | 'name' | 'args' | 'turn' | 'status'>): ToolOutput {
  return { toolCallId: request.toolCallId, name: request.name, args: request.args, turn: request.turn, status: 'ok', ...fields };
}

/** An output for a call the runtime closed without running it (cap, block, drop, kill). */
export function closedOutput(request: ToolRequest, type: ToolError['type'], message: string, retryHint?: RetryHint): ToolOutput {
  return errorOutput(request, { type, message }, retryHint);
}
