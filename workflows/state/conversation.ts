import type { Message } from '../../contracts/messages';
import type { ToolOutput, ToolRequest } from '../../contracts/tools';

/** The assistant message that opens a turn's tool calls (with what it said beside them). */
export function assistantToolCalls(requests: readonly ToolRequest[], text?: string): Message {
  return {
    role: 'assistant',
    ...(text ? { content: text } : {}),
    toolCalls: requests.map((r) => ({ id: r.toolCallId, name: r.name, args: r.args })),
  };
}

/**
 * The tool message that closes a call. Every call gets one, failed and cancelled calls
 * included, so providers never see an unanswered tool call.
 */
export function toolResultMessage(output: ToolOutput): Message {
  let body: unknown;
  if (output.status !== 'ok') {
    body = { error: output.error, ...(output.retryHint ? { retryHint: output.retryHint } : {}) };
  } else if (output.resultOmitted) {
    body = {
      resultOmitted: true,
      reason: output.resultOmittedReason,
      resultBytes: output.resultBytes,
      preview: output.resultPreview,
    };
  } else {
    body = output.result ?? null;
  }
  return { role: 'tool', toolCallId: output.toolCallId, name: output.name, content: JSON.stringify(body) };
}
