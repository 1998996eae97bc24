import type { RunEvent } from '../contracts';

/** One human-readable line for an event, as printed by the demo and `agentctl events`. */
export function formatEvent(e: RunEvent): string {
  const head = `#${String(e.seq).padStart(3)} ${e.at.slice(11, 23)} ${e.type.padEnd(18)}`;
  switch (e.type) {
    case 'run_started':
      return `${head} agent=${e.agent} messages=${e.messageCount}`;
    case 'status_changed':
      return `${head} ${e.from} -> ${e.to}`;
    case 'plan':
      return `${head} turn ${e.turn}: ${e.decision}${e.toolCalls ? ` ${e.toolCalls.map(planCall).join(', ')}` : ''}`;
    case 'note':
      return `${head} ${e.note.text}`;
    case 'tool_call':
      return `${head} ${e.name}(${e.toolCallId}) ${JSON.stringify(e.args)}`;
    case 'tool_result':
      return `${head} ${e.name}(${e.toolCallId}) ${e.status}${e.error ? ` ${e.error.type}: ${e.error.message}` : ` ${e.resultBytes} bytes`} in ${e.durationMs} ms`;
    case 'finalize_requested':
      return `${head} ${e.reason}: ${e.message}`;
    case 'final':
      return `${head} ${e.response.text}`;
    case 'run_failed':
      return `${head} ${e.errorType}: ${e.message}`;
    case 'signal_rejected':
      return `${head} ${e.signal}: ${e.reason}`;
    case 'pause_requested':
      return `${head} ${e.reason}`;
    case 'paused':
      return `${head} at ${e.point}, turn ${e.turn}: ${e.reason}`;
    case 'resumed':
      return `${head} after ${e.pausedMs} ms${e.reason ? `: ${e.reason}` : ''}`;
    case 'intervention_queued':
      return `${head} #${e.id} ${e.kind}`;
    case 'intervention_applied':
      return `${head} ${e.id !== undefined ? `#${e.id} ` : ''}${e.kind}${e.point ? ` at ${e.point}` : ''}: ${e.detail}`;
    case 'intervention_rejected':
      return `${head} #${e.id} ${e.kind}: ${e.reason}`;
    case 'tools_updated':
      return `${head} ${e.toolset} (${e.server}) v${e.version} [${e.reason}]: ${e.tools.join(', ') || '(none)'}`;
    case 'budget_changed':
      return `${head} ${JSON.stringify(e.change)}`;
    case 'budget_credited':
      return `${head} ${e.waitedMs} ms not charged: ${e.reason}`;
    case 'model_usage':
      return `${head} turn ${e.turn}${e.judge ? ` judge ${e.judge}` : ''}${e.model ? ` ${e.model}` : ''}: ${e.tokensUnknown ? 'tokens unknown' : `${e.tokens} tokens`}, ${e.cost ? `cost ${Math.round(e.cost.amount * 10_000) / 10_000} ${e.cost.currency}` : 'cost unknown'}`;
    case 'kill_requested':
      return `${head} ${e.reason} (${e.source})`;
    case 'run_terminated':
      return `${head} ${e.reason}; cancelled: ${e.cancelledCalls.join(', ') || 'none'}`;
    case 'await_opened':
      return `${head} ${e.awaitId}: ${e.items.map((i) => `${i.kind} ${i.id}`).join(', ')}${e.deadline ? ` (until ${e.deadline})` : ''}`;
    case 'await_answered':
      return `${head} ${e.awaitId}/${e.itemId}`;
    case 'await_closed':
      return `${head} ${e.awaitId}: ${e.outcome}`;
    case 'approval_requested':
      return `${head} ${e.name}(${e.toolCallId}) ${JSON.stringify(e.args)} waits for confirmation`;
    case 'approval_decided':
      return `${head} ${e.toolCallId}: ${e.decision}${e.updated ? ` -> ${e.updated.name} ${JSON.stringify(e.updated.args)}` : ''}${e.reason ? ` (${e.reason})` : ''}${e.by ? ` by ${e.by}` : ''}`;
    case 'approval_judged':
      return `${head} ${e.toolCallId}: ${e.evaluator} says ${e.verdict}${e.confidence !== undefined ? ` (${e.confidence})` : ''}${e.escalated ? `, asking a person: ${e.why ?? ''}` : ''}`;
    case 'approval_notified':
      return `${head} ${e.toolCallId}: notice delivered by ${e.notifier} on attempt ${e.attempt} (${e.status})${e.keyId ? `, signed with ${e.keyId}` : ''}`;
    case 'approval_rules_changed':
      return `${head} rules ${e.version}${e.decided.length ? `, deciding ${e.decided.join(', ')}` : ''}${e.children?.length ? `, passed on to ${e.children.join(', ')}` : ''}`;
    case 'quota_waiting':
      return `${head} tenant ${e.tenant} (${e.phase}${e.position ? `, #${e.position} in line` : ''}): ${e.reason}${e.until ? ` until ${e.until}` : ''}`;
    case 'quota_cleared':
      return `${head} tenant ${e.tenant} (${e.phase}) after ${e.waitedMs} ms`;
    case 'session_state_changed':
      return `${head} ${JSON.stringify(e.changes)} by ${e.toolCallId}`;
    case 'child_started':
      return `${head} ${e.toolCallId} runs ${e.agent} as ${e.workflowId}`;
    case 'child_ended':
      return `${head} ${e.toolCallId}: ${e.workflowId} ${e.status}`;
    case 'early_call_discarded':
      return `${head} ${e.name}(${e.toolCallId}): ${e.reason}`;
    case 'output_written':
      return `${head} ${e.path} by ${e.toolCallId}`;
    case 'model_waiting':
      return `${head} turn ${e.turn}: waiting for the provider of ${e.model} after ${e.attempts} failed attempt(s), retrying until it answers or the time budget is spent; ${e.errorType}: ${e.error}`;
    case 'mcp_waiting':
      return `${head} turn ${e.turn}: waiting for MCP server ${e.server} (toolset ${e.toolset}) after ${e.attempts} failed attempt(s); ${e.error}`;
  }
}

/** `name(id)`, with what a dependency-aware call waits for and writes: `name(id) after a,b -> path`. */
function planCall(c: NonNullable<Extract<RunEvent, { type: 'plan' }>['toolCalls']>[number]): string {
  return `${c.name}(${c.toolCallId})${c.dependsOn?.length ? ` after ${c.dependsOn.join(',')}` : ''}${c.outputPath ? ` -> ${c.outputPath}` : ''}`;
}
