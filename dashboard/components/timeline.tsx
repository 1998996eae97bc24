import { markerSeq, type RewindMarker, type Streaming } from '../timeline-state';
import type { Intervention, RunEvent } from '../types';
import { counted, formatBytes, formatClock } from './json-view';
import { formatDuration } from '../durations';
import { formatMoney } from './budget-panel';

type ToolResult = Extract<RunEvent, { type: 'tool_result' }>;

function short(value: unknown, max = 400): string {
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** One line saying what an event means (tool calls are rendered with their result instead). */
function describe(event: RunEvent): string {
  switch (event.type) {
    case 'run_started':
      return `run of ${event.agent} started with ${counted(event.messageCount, 'message')}`;
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
    case 'approval_judged':
      return `${event.toolCallId}: judge ${event.evaluator} says ${event.verdict}${event.confidence !== undefined ? ` (${event.confidence})` : ''}${event.escalated ? `, asking a person: ${event.why ?? ''}` : ''}`;
    case 'approval_notified':
      return `${event.toolCallId}: notice delivered by ${event.notifier} on attempt ${event.attempt}${event.keyId ? `, signed with ${event.keyId}` : ''}`;
    case 'approval_rules_changed':
      return `approval rules ${event.version}${event.decided.length ? `, deciding ${event.decided.join(', ')}` : ''}${event.children?.length ? `, passed on to ${counted(event.children.length, 'sub-agent run')}` : ''}`;
    case 'paused':
      return `paused at ${event.point} (turn ${event.turn}): ${event.reason}`;
    case 'resumed':
      return `resumed after ${formatDuration(event.pausedMs)}${event.reason ? `: ${event.reason}` : ''}`;
    case 'pause_requested':
    case 'kill_requested':
      return `${event.type.replace('_', ' ')}: ${event.reason}`;
    case 'run_terminated':
      return `terminated: ${event.reason}`;
    case 'budget_changed':
      return `budget changed ${short(event.change)}`;
    case 'budget_credited':
      return `${formatDuration(event.waitedMs)} not charged to the time budget`;
    case 'model_usage':
      return `${event.judge ? `judge ${event.judge}, ` : ''}model ${event.model ?? ''}: ${event.tokensUnknown ? 'tokens unknown' : counted(event.tokens, 'token')}, ${event.cost ? formatMoney(event.cost.amount, event.cost.currency) : 'cost unknown'}`;
    case 'await_opened':
      return `waiting for ${counted(event.items.length, 'answer')}`;
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
      return `waiting for the model provider (${event.model}) after ${counted(event.attempts, 'failed attempt')}: ${event.errorType}: ${event.error}`;
    case 'quota_waiting':
      return `waiting for tenant ${event.tenant}'s quota (${event.phase === 'start' ? `to start${event.position ? `, #${event.position} in line` : ''}` : 'model calls held'}): ${event.reason}${event.until ? ` until ${event.until}` : ''}`;
    case 'quota_cleared':
      return `tenant ${event.tenant}'s quota lets the run ${event.phase === 'start' ? 'start' : 'call the model'} again after ${formatDuration(event.waitedMs)}`;
    case 'mcp_waiting':
      return `waiting for MCP server ${event.server} (toolset ${event.toolset}) after ${counted(event.attempts, 'failed attempt')}: ${event.error}`;
    case 'tools_updated':
      return `tools of ${event.toolset} (${event.reason}, version ${event.version}): ${event.tools.join(', ') || 'none'}`;
    case 'note':
      return `note ${short(event.note)}`;
    case 'tool_call':
    case 'tool_result':
      return event.name;
  }
}

/** A call's result: the value (or the start of a long one), folded, with its size. */
function ResultView({ result }: { result: ToolResult }) {
  if (result.error) return <div class="hint">{`${result.error.type}: ${result.error.message}`}</div>;
  const size = formatBytes(result.resultBytes);
  if (result.result === undefined && result.resultPreview === undefined) {
    return <div class="hint">{`result of ${size}${result.resultOmitted ? ' (not kept by the run)' : ''}`}</div>;
  }
  const text = result.result !== undefined ? JSON.stringify(result.result, null, 2) : `${result.resultPreview ?? ''}…`;
  return (
    <details class="result" data-testid="tool-result">
      <summary>
        result, {size}
        {result.resultCut ? ' (the start of it)' : ''}
      </summary>
      <pre class="json">{text}</pre>
    </details>
  );
}

function ToolCall({ call, result }: { call: Extract<RunEvent, { type: 'tool_call' }>; result?: ToolResult | undefined }) {
  return (
    <div class="tool">
      <div>
        <b>{call.name}</b> <code>{call.toolCallId}</code>
        {result ? (
          <span class={`badge tool-${result.status}`}>
            {result.status} · {formatDuration(result.durationMs)}
          </span>
        ) : (
          <span class="badge running">running</span>
        )}
      </div>
      <pre class="json">{JSON.stringify(call.args, null, 2)}</pre>
      {result && <ResultView result={result} />}
    </div>
  );
}

/** What a correction applied at a rewind did, in a few words. */
function correctionWords(c: Intervention): string {
  return `${c.kind.replace(/_/g, ' ')}${'toolCallId' in c ? ` ${c.toolCallId}` : ''}`;
}

/** Where the run was rewound: the turn it went back to, when, why, with what, and that the events after it replaced the old ones. */
function RewindLine({ marker }: { marker: RewindMarker }) {
  const r = marker.recorded;
  return (
    <li class="event rewind-marker" data-testid="rewind-marker" {...(r?.turn !== undefined ? { 'data-turn': r.turn } : {})}>
      <span class="seq">↺</span>
      <span class="time" title={marker.at}>
        {formatClock(marker.at)}
      </span>
      <span class="what">
        {r ? (
          <>
            rewound here{r.turn !== undefined ? `, to turn ${r.turn}` : ''}
            {r.reason && r.reason !== `rewind to turn ${r.turn}` ? ` (${r.reason})` : ''}
            {r.corrections.length ? ` with ${counted(r.corrections.length, 'correction')}: ${r.corrections.map(correctionWords).join(', ')}` : ''}
            {`: the events from here on replaced those of the earlier execution ${r.replacedRunId.slice(0, 8)}…`}
          </>
        ) : (
          `rewound here: the events from #${marker.fromSeq ?? '?'} on replaced the ones before the rewind`
        )}
      </span>
    </li>
  );
}

/**
 * The run's events as they arrive, tool calls with their results, then the text streaming now.
 * `resets`: how many rewinds the live feed saw (shown as an attribute, for tests and tools);
 * `rewinds`: where the run was rewound, each marked before the first event that replaced the old ones.
 */
export function Timeline({ events, streaming, resets, rewinds = [] }: { events: readonly RunEvent[]; streaming: readonly Streaming[]; resets: number; rewinds?: readonly RewindMarker[] }) {
  const results = new Map<string, ToolResult>();
  for (const e of events) if (e.type === 'tool_result') results.set(e.toolCallId, e);
  const shown = events.filter((e) => e.type !== 'tool_result');
  const placed = rewinds.map((marker) => ({ marker, seq: markerSeq(shown, marker) }));
  const markersAt = (seq: number | undefined) => placed.filter((p) => p.seq === seq).map((p) => <RewindLine key={p.marker.key} marker={p.marker} />);
  return (
    <ol class="timeline" data-testid="timeline" data-resets={resets}>
      {shown.map((e) => [
        ...markersAt(e.seq),
        <li key={e.seq} class={`event event-${e.type}`} data-seq={e.seq} data-type={e.type}>
          <span class="seq">#{e.seq}</span>
          <span class="time" title={e.at}>
            {formatClock(e.at)}
          </span>
          {e.type === 'tool_call' ? <ToolCall call={e} result={results.get(e.toolCallId)} /> : <span class="what">{describe(e)}</span>}
        </li>,
      ])}
      {markersAt(undefined)}
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
