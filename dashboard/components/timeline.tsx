import type { Streaming } from '../timeline-state';
import type { RunEvent } from '../types';
import { formatClock } from './json-view';

type ToolResult = Extract<RunEvent, { type: 'tool_result' }>;

function short(value: unknown, max = 400): string {
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** One line saying what an event means (tool calls are rendered with their result instead). */
function describe(event: RunEvent): string {
  switch (event.type) {
    case 'run_started':
      return `run of ${event.agent} started with ${event.messageCount} message(s)`;
    case 'status_changed':
      return `status ${event.from} → ${event.to}`;
    case 'plan':
      return `turn ${event.turn}: ${event.decision}${event.toolCalls?.length ? ` (${event.toolCalls.map((c) => `${c.name}${c.dependsOn?.length ? ` after ${c.dependsOn.join(', ')}` : ''}${c.outputPath ? ` -> ${c.outputPath}` : ''}`).join(', ')})` : ''}`;
    case 'final':
      return `final answer: ${event.response.text}`;
    case 'run_failed':
      return `failed (${event.errorType}): ${event.message}`;
    case 'approval_requested':
      return `approval requested for ${event.name} ${short(event.args)}`;
    case 'approval_decided':
      return `${event.toolCallId}: ${event.decision}${event.by ? ` by ${event.by}` : ''}${event.reason ? ` (${event.reason})` : ''}${event.updated ? ` → ${event.updated.name} ${short(event.updated.args)}` : ''}`;
    case 'paused':
      return `paused at ${event.point} (turn ${event.turn}): ${event.reason}`;
    case 'resumed':
      return `resumed after ${Math.round(event.pausedMs / 1000)}s${event.reason ? `: ${event.reason}` : ''}`;
    case 'pause_requested':
    case 'kill_requested':
      return `${event.type.replace('_', ' ')}: ${event.reason}`;
    case 'run_terminated':
      return `terminated: ${event.reason}`;
    case 'budget_changed':
      return `budget changed ${short(event.change)}`;
    case 'budget_credited':
      return `${Math.round(event.waitedMs / 1000)} s not charged to the time budget`;
    case 'await_opened':
      return `waiting for ${event.items.length} answer(s)`;
    case 'await_answered':
      return `answered ${event.itemId}`;
    case 'await_closed':
      return `await ${event.outcome}`;
    case 'finalize_requested':
      return `finalize (${event.reason}): ${event.message}`;
    case 'signal_rejected':
      return `${event.signal} rejected: ${event.reason}`;
    case 'intervention_queued':
    case 'intervention_applied':
    case 'intervention_rejected':
      return `${event.type.replace('_', ' ')}: ${event.kind}${'detail' in event ? ` ${event.detail}` : ''}${'reason' in event ? ` ${event.reason}` : ''}`;
    case 'session_state_changed':
      return `session state ${short(event.changes)}`;
    case 'child_started':
      return `sub-agent ${event.agent} started (${event.workflowId})`;
    case 'child_ended':
      return `sub-agent ${event.workflowId} ${event.status}`;
    case 'early_call_discarded':
      return `early call ${event.name} discarded: ${event.reason}`;
    case 'output_written':
      return `wrote ${event.path} (${event.toolCallId})`;
    case 'model_waiting':
      return `waiting for the model provider (${event.model}) after ${event.attempts} failed attempt(s): ${event.errorType}: ${event.error}`;
    case 'mcp_waiting':
      return `waiting for MCP server ${event.server} (toolset ${event.toolset}) after ${event.attempts} failed attempt(s): ${event.error}`;
    case 'tools_updated':
      return `tools of ${event.toolset} (${event.reason}, version ${event.version}): ${event.tools.join(', ') || 'none'}`;
    case 'note':
      return `note ${short(event.note)}`;
    case 'tool_call':
    case 'tool_result':
      return event.name;
  }
}

function ToolCall({ call, result }: { call: Extract<RunEvent, { type: 'tool_call' }>; result?: ToolResult | undefined }) {
  return (
    <div class="tool">
      <div>
        <b>{call.name}</b> <code>{call.toolCallId}</code>
        {result ? (
          <span class={`badge tool-${result.status}`}>
            {result.status} · {Math.round(result.durationMs)} ms
          </span>
        ) : (
          <span class="badge running">running</span>
        )}
      </div>
      <pre class="json">{JSON.stringify(call.args, null, 2)}</pre>
      {result && (
        <div class="hint">
          {result.error ? `${result.error.type}: ${result.error.message}` : `${result.resultBytes} bytes${result.resultOmitted ? ' (omitted from the log)' : ''}`}
        </div>
      )}
    </div>
  );
}

/**
 * The run's events as they arrive, tool calls with their results, then the text streaming now.
 * `resets`: how many rewinds replaced part of it (shown as an attribute, for tests and tools).
 */
export function Timeline({ events, streaming, resets }: { events: readonly RunEvent[]; streaming: readonly Streaming[]; resets: number }) {
  const results = new Map<string, ToolResult>();
  for (const e of events) if (e.type === 'tool_result') results.set(e.toolCallId, e);
  return (
    <ol class="timeline" data-testid="timeline" data-resets={resets}>
      {events
        .filter((e) => e.type !== 'tool_result')
        .map((e) => (
          <li key={e.seq} class={`event event-${e.type}`} data-seq={e.seq} data-type={e.type}>
            <span class="seq">#{e.seq}</span>
            <span class="time" title={e.at}>{formatClock(e.at)}</span>
            {e.type === 'tool_call' ? <ToolCall call={e} result={results.get(e.toolCallId)} /> : <span class="what">{describe(e)}</span>}
          </li>
        ))}
      {streaming.map((s) => (
        <li key={s.key} class="event streaming" data-testid="streaming">
          <span class="seq">…</span>
          <span class="time">{s.turn !== undefined ? `turn ${s.turn}` : 'model'}</span>
          <span class="what">
            {s.kind === 'tool-args' ? `${s.toolName ?? 'tool'} arguments: ` : ''}
            {s.text}
            <span class="cursor">▍</span>
          </span>
        </li>
      ))}
    </ol>
  );
}
