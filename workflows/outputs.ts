import type { RetryHint, ToolErrorType, ToolOutput, ToolRequest } from '../contracts';

/** An output for a call the runtime closed without running it (cap, block, drop, kill). */
export function closedOutput(request: ToolRequest, type: ToolErrorType, message: string, retryHint?: RetryHint): ToolOutput {
  return {
    toolCallId: request.toolCallId,
    name: request.name,
    args: request.args,
    turn: request.turn,
    status: type === 'cancelled' ? 'cancelled' : 'error',
    resultBytes: 0,
    error: { type, message },
    ...(retryHint ? { retryHint } : {}),
    telemetry: { durationMs: 0 },
  };
}
