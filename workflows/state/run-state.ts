import { announceEventsOf } from './event-announcements';
import { workflowInfo } from '@temporalio/workflow';
import type { CarriedOpenTurn, CarriedRunState } from '../../contracts/carried-state';
import {
  defaultContinueAsNewAfterSignals,
  defaultContinueAsNewAfterUpdates,
  defaultRunPolicy,
  type ChildRun,
  type ParsedRunInput,
  type ProviderWait,
  type RunPolicy,
  type RunStatus,
} from '../../contracts/run';
import type { JsonValue } from '../../contracts/json';
import { resultInEvent } from '../../contracts/result-in-event';
import type { FinalizeReason, Termination } from '../../contracts/plan';
import type { Message } from '../../contracts/messages';
import type { RunEventDraft } from '../../contracts/events';
import type { ToolCall, ToolOutput, ToolRequest, WrittenOutput } from '../../contracts/tools';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { AgentDefinition } from '../agents/agent-registry';
import { costReport, describeCap, emptyUsage, reachedCap, type Usage } from './budget';
import { withCallGraph } from './call-graph';
import { assistantToolCalls, toolResultMessage } from './conversation';
import { EventLog } from './event-log';
import { HumanInputs } from './human-inputs';
import { RunControl } from './run-control';
import { RunClock } from './run-clock';
import { CallIds } from './call-ids';
import { RunToolsets } from '../agents/toolsets';
import { ChildWaits } from './child-waits';
import type { RunAccountLink } from './run-account';
import { parseRunPolicy } from '../../contracts/fast-schemas';

const terminal: readonly RunStatus[] = ['completed', 'failed', 'terminated'];

/** The run's policy: defaults, then the agent's, then the run's; throws zod's error when invalid. */
function effectivePolicy(merged: unknown): RunPolicy {
  const parsed = parseRunPolicy(merged);
  if (!parsed.success) throw parsed.error;
  return parsed.data;
}

/**
 * The log epoch of the current execution: a rewind (Temporal reset) starts a new one, named by
 * the reset run's id; continue-as-new keeps the carried one. Not used in commands.
 */
export function logEpoch(carried: string | undefined): string {
  const info = workflowInfo();
  const reset = info.runId !== info.originalExecutionRunId;
  return reset ? info.runId : (carried ?? info.runId);
}

/**
 * The durable state of one run and its bookkeeping: conversation, outputs, budgets used,
 * status, the event log, and what operators and humans have asked for. No awaits here: the
 * loop (run-loop.ts) acts on this state, message handlers change it.
 */
export class RunState {
  readonly log: EventLog;
  readonly control = new RunControl();
  readonly human = new HumanInputs();
  /** The agent's MCP toolsets: their snapshots and pending refreshes. */
  readonly toolsets: RunToolsets;
  policy: RunPolicy;
  readonly messages: Message[];
  readonly toolOutputs: ToolOutput[];
  readonly plannerState: Record<string, JsonValue>;
  readonly sessionState: Record<string, JsonValue>;
  /** Outputs recorded in the open turn and not yet in the transcript, by call id. */
  readonly turnOutputs = new Map<string, ToolOutput>();
  /**
   * Updates and signals this execution has accepted: Temporal bounds both per execution, so the
   * run continues as new before it reaches them ({@link messagesNearLimit}).
   */
  readonly received = { updates: 0, signals: 0 };
  /** The turn the previous execution stopped in while it waited for people, until the loop takes it. */
  private carriedOpenTurn: CarriedOpenTurn | undefined;
  /** Set once this execution is about to continue as new: nothing it reports after that matters. */
  continuing = false;
  /** Calls of the current plan: planned (not yet dispatched) or in flight. */
  readonly pending = new Map<string, { request: ToolRequest; dispatched: boolean }>();
  usage: Usage;
  finalizeReason: FinalizeReason | undefined;
  /** A finalize decided but not yet handed to the planner (carried across continue-as-new). */
  pendingTermination: Termination | undefined;
  turn: number;
  instructionsOverride: string | undefined;
  /** Ids of the injected messages the planner saw (a session's steered messages), in order. */
  readonly steered: string[];
  /** The model provider or MCP server the run waits for (an outage): the status's `waitingFor` (see provider-waits.ts). */
  providerWait: ProviderWait | undefined;
  /** The run's tenant account, when it joined one (run/tenant-admission.ts). */
  account: RunAccountLink | undefined;
  /** Called after every reported status change (the workflow mirrors it to a search attribute). */
  onStatusChange: ((status: RunStatus) => void) | undefined;
  /**
   * Called after a change the time-budget watch may wait for: idling, the run's end, a budget
   * change (set by the watch).
   */
  onClockChange: (() => void) | undefined;
  /** Called when the run starts or stops waiting for people (a sub-agent run tells its parent, see run/people-waits.ts). */
  onIdleChange: ((idle: boolean) => void) | undefined;
  /** Sub-agent runs of this run that wait for people: while all its calls in flight do, the run waits too. */
  readonly childWaits = new ChildWaits();
  /** The call ids this run has used (planned calls, calls an await binds). */
  readonly callIds: CallIds;
  /** Sub-agent runs started by agent tools, by call id. */
  readonly children = new Map<string, ChildRun>();
  /** Write-once output paths written so far (see ToolCall.outputPath). */
  readonly outputs: Map<string, WrittenOutput>;
  /** The run's work time, which the time budget counts (paused and waiting for people do not count). */
  readonly clock: RunClock;
  private baseStatus: RunStatus = 'running';
  private reportedStatus: RunStatus = 'running';
  readonly generation: number;
  readonly transcriptEpoch: number;

  /**
   * @param epochOf the log epoch of this execution from the carried one (see {@link logEpoch});
   *   omitted outside a workflow (tests), where the log has no epoch.
   */
  constructor(
    readonly input: ParsedRunInput,
    readonly agent: AgentDefinition,
    carried?: CarriedRunState,
    epochOf?: (carried: string | undefined) => string,
  ) {
    this.policy = carried?.policy ?? effectivePolicy({ ...defaultRunPolicy, ...agent.policy, ...input.policy });
    this.messages = carried?.messages ?? [...input.history, ...input.messages].map((m) => ({ ...m }));
    this.toolOutputs = carried?.toolOutputs ?? [];
    this.plannerState = carried?.plannerState ?? {};
    this.sessionState = carried?.sessionState ?? { ...input.sessionState };
    this.usage = carried?.usage ?? emptyUsage();
    this.finalizeReason = carried?.finalizeReason;
    this.pendingTermination = carried?.pendingTermination;
    this.carriedOpenTurn = carried?.openTurn;
    this.turn = carried?.turn ?? 0;
    this.instructionsOverride = carried?.instructionsOverride;
    this.steered = [...(carried?.steered ?? [])];
    this.clock = new RunClock(carried, {
      idleChanged: (idle) => this.onIdleChange?.(idle),
      credited: (event) => {
        this.emit(event);
        this.onClockChange?.();
      },
    });
    this.generation = carried?.generation ?? 0;
    this.transcriptEpoch = carried?.transcriptEpoch ?? 0;
    this.outputs = new Map(Object.entries(carried?.outputs ?? {}));
    this.toolsets = new RunToolsets(agent.toolsets ?? [], agent.tools, carried);
    this.log = new EventLog(carried?.nextSeq ?? 1, carried?.events ?? [], epochOf?.(carried?.logEpoch));
    announceEventsOf(this.log);
    this.callIds = new CallIds(this.messages);
    const breakpoints = carried?.control.breakpoints ?? input.breakpoints;
    for (const b of breakpoints) this.control.setBreakpoint(b.point, b.tool, b.once);
    if (carried) {
      this.control.pauseReason = carried.control.pauseReason;
      for (const b of carried.control.blockedTools) this.control.block(b.name, b.reason);
      this.control.restoreQueue(carried.control.queued, carried.control.nextInterventionId);
      for (const name of carried.alwaysApproved) this.human.alwaysApproved.add(name);
    }
  }

  /** The tools calls may use now: the agent's own, then those of its MCP toolsets' snapshots. */
  tools(): readonly ToolDefinition[] {
    return this.toolsets.tools();
  }

  // ---- status ------------------------------------------------------------------------

  get status(): RunStatus {
    return this.reportedStatus;
  }

  get isTerminal(): boolean {
    return terminal.includes(this.baseStatus);
  }

  /** Marks the run completed / failed / terminated. */
  end(status: 'completed' | 'failed' | 'terminated'): void {
    this.baseStatus = status;
    this.refreshStatus();
  }

  /** Recomputes the reported status (pause and human waits layered over the lifecycle) and logs a change. */
  refreshStatus(): void {
    if (this.continuing) return;
    const to: RunStatus = this.isTerminal
      ? this.baseStatus
      : this.control.isPaused && this.control.isPauseRequested
        ? 'paused'
        : this.control.isPauseRequested
          ? 'pausing'
          : this.human.isWaiting
            ? 'awaiting'
            : this.baseStatus;
    this.clock.trackIdle(!this.isTerminal && (to === 'paused' || to === 'awaiting' || this.control.isPaused || this.childWaits.holdRun(this.pending)));
    if (to !== this.reportedStatus) {
      const from = this.reportedStatus;
      this.reportedStatus = to;
      this.emit({ type: 'status_changed', from, to });
      this.onStatusChange?.(to);
    }
    this.onClockChange?.();
  }

  emit(draft: RunEventDraft): void {
    this.log.append(draft);
  }

  // ---- budgets -----------------------------------------------------------------------

  /** Applies an operator's change of caps (fields left out keep their value) and logs it. */
  changeBudget(change: Record<string, number>): void {
    this.policy = { ...this.policy, ...change };
    this.emit({ type: 'budget_changed', change });
    this.onClockChange?.();
  }

  /** Hands a decided finalize to the planner exactly once; decides one when a cap is reached. */
  takeTermination(): Termination | undefined {
    if (!this.finalizeReason) {
      const reason = reachedCap(this.usage, this.policy, this.clock.elapsedMs());
      if (reason) this.requestFinalize(reason);
    }
    const termination = this.pendingTermination;
    this.pendingTermination = undefined;
    return termination;
  }

  requestFinalize(reason: FinalizeReason): void {
    if (this.finalizeReason) return;
    this.finalizeReason = reason;
    const message = describeCap(reason, this.usage, this.policy);
    this.emit({ type: 'finalize_requested', reason, message });
    this.pendingTermination = { reason, message };
  }

  cost() {
    return costReport(this.usage, this.policy, this.clock.elapsedMs());
  }

  // ---- conversation ------------------------------------------------------------------

  /** Assigns call ids, opens the calls in the conversation and logs the plan. */
  planCalls(calls: readonly ToolCall[], text?: string): ToolRequest[] {
    this.clock.beginToolTurn();
    const ids = this.callIds.assign(calls, this.turn);
    const requests = withCallGraph(calls, ids, this.turn);
    for (const request of requests) this.pending.set(request.toolCallId, { request, dispatched: false });
    // The assistant message opens the calls now, so every later ending can close them.
    this.messages.push(assistantToolCalls(requests, text));
    const toolCalls = requests.map((r) => ({
      toolCallId: r.toolCallId,
      name: r.name,
      ...(r.dependsOn ? { dependsOn: r.dependsOn } : {}),
      ...(r.outputPath ? { outputPath: r.outputPath } : {}),
    }));
    this.emit({ type: 'plan', turn: this.turn, decision: 'tool_calls', toolCalls });
    return requests;
  }

  /** Records an output as it arrives: applies its session changes and logs the result. */
  record(output: ToolOutput): ToolOutput {
    this.pending.delete(output.toolCallId);
    this.turnOutputs.set(output.toolCallId, output);
    for (const [key, value] of Object.entries(output.sessionStateChanges ?? {})) {
      if (value === null) delete this.sessionState[key];
      else this.sessionState[key] = value;
    }
    if (output.sessionStateChanges) this.emit({ type: 'session_state_changed', toolCallId: output.toolCallId, changes: output.sessionStateChanges });
    this.emit({
      type: 'tool_result',
      turn: output.turn,
      toolCallId: output.toolCallId,
      name: output.name,
      status: output.status,
      resultBytes: output.resultBytes,
      ...(output.resultOmitted ? { resultOmitted: true } : {}),
      ...(output.status === 'ok' ? resultInEvent(output.result, output.resultPreview) : {}),
      ...(output.error ? { error: output.error } : {}),
      ...(output.retryHint ? { retryHint: output.retryHint } : {}),
      durationMs: output.telemetry.durationMs,
    });
    return output;
  }

  /** Writes a write-once output path with a successful call's result (the caller checked it is free). */
  writeOutput(path: string, output: ToolOutput): void {
    this.outputs.set(path, {
      toolCallId: output.toolCallId,
      turn: output.turn,
      ...(output.result !== undefined ? { value: output.result } : { valueOmitted: true }),
    });
    this.emit({ type: 'output_written', turn: output.turn, path, toolCallId: output.toolCallId });
  }

  /** Puts recorded outputs into the transcript, in call order. */
  commit(outputs: readonly ToolOutput[]): void {
    for (const output of outputs) {
      this.turnOutputs.delete(output.toolCallId);
      this.toolOutputs.push(output);
      this.messages.push(toolResultMessage(output));
    }
  }

  // ---- reports -----------------------------------------------------------------------

  /** True when this execution should continue as new as soon as it safely can: a long history, or many messages. */
  continuationDue(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= this.policy.continueAsNewAfterEvents || this.messagesNearLimit();
  }

  /** This execution has accepted as many updates or signals as the policy allows it. */
  messagesNearLimit(): boolean {
    const { policy, received } = this;
    return (
      received.updates >= (policy.continueAsNewAfterUpdates ?? defaultContinueAsNewAfterUpdates) ||
      received.signals >= (policy.continueAsNewAfterSignals ?? defaultContinueAsNewAfterSignals)
    );
  }

  /** The turn the previous execution stopped in, once: the loop goes on with it. */
  takeOpenTurn(): CarriedOpenTurn | undefined {
    const open = this.carriedOpenTurn;
    this.carriedOpenTurn = undefined;
    return open;
  }
}
