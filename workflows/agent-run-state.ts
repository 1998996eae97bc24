import { ApplicationFailure, CancellationScope, isCancellation, sleep, workflowInfo } from '@temporalio/workflow';
import {
  describeIssues,
  planResultSchema,
  runPolicySchema,
  defaultRunPolicy,
  eventsQueryArgsSchema,
  type EventPage,
  type FinalizeReason,
  type FinalResponse,
  type JsonValue,
  type Message,
  type ParsedRunInput,
  type PlanResult,
  type RetryHint,
  type RunEventDraft,
  type RunPolicy,
  type RunResult,
  type RunStatus,
  type RunStatusReport,
  type Termination,
  type ToolCall,
  type ToolOutput,
  type ToolRequest,
} from '../contracts';
import type { AgentDefinition } from './agent-registry';
import { recordAgentState } from './agent-state';
import { addToolOutputs, costReport, describeCap, emptyUsage, reachedCap, type Usage } from './budget';
import { workflowNowMs } from './clock';
import { assistantToolCalls, toolResultMessage } from './conversation';
import { EventLog } from './event-log';
import type { Planner, PlannerContext } from './planner';
import { executeCall, prepareCall, type DispatchContext } from './tool-dispatch';

/**
 * The state and loop of one agent run (Think-Act-Observe). The workflow function registers
 * message handlers and delegates here; everything in this class is deterministic.
 */
export class AgentRunState {
  status: RunStatus = 'running';
  readonly log = new EventLog();
  readonly policy: RunPolicy;
  private readonly messages: Message[];
  private readonly toolOutputs: ToolOutput[] = [];
  private readonly plannerState: Record<string, JsonValue> = {};
  private readonly sessionState: Record<string, JsonValue>;
  private readonly pending = new Map<string, string>();
  private readonly usedCallIds = new Set<string>();
  private readonly planner: Planner;
  private usage: Usage = emptyUsage();
  private finalizeReason: FinalizeReason | undefined;
  private readonly startedAtMs = workflowNowMs();
  private turn = 0;

  constructor(
    private readonly input: ParsedRunInput,
    private readonly agent: AgentDefinition,
  ) {
    this.policy = runPolicySchema.parse({ ...defaultRunPolicy, ...agent.policy, ...input.policy });
    this.messages = input.messages.map((m) => ({ ...m }));
    this.sessionState = { ...input.sessionState };
    try {
      this.planner = agent.createPlanner(input.plannerOptions);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw ApplicationFailure.nonRetryable(`invalid planner options for agent ${agent.name}: ${message}`, 'invalid_input');
    }
  }

  /** Runs the loop to a final response. Throws ApplicationFailure for business failures. */
  async execute(): Promise<RunResult> {
    this.emit({ type: 'run_started', agent: this.agent.name, messageCount: this.messages.length });
    let plan = await this.plan(() => this.planner.planStart({ messages: this.messages }, this.plannerContext()));
    for (;;) {
      if (plan.type === 'final') return this.complete(plan.response);
      if (plan.type === 'await') {
        return this.fail('await_unsupported', 'this runtime version cannot satisfy await barriers yet');
      }
      if (this.finalizeReason) {
        // The planner ignored the Finalize turn; end the run rather than loop past a cap.
        return this.complete({ text: `Run ended: ${describeCap(this.finalizeReason, this.usage, this.policy)}.` });
      }
      const outputs = await this.runToolTurn(plan.calls);
      this.usage = addToolOutputs(this.usage, outputs);
      this.turn += 1;
      const termination = this.checkCaps();
      const lastOutputs = outputs;
      plan = await this.plan(() =>
        this.planner.planResume(
          {
            messages: this.messages,
            toolOutputs: this.toolOutputs,
            lastOutputs,
            ...(termination ? { finalize: termination } : {}),
          },
          this.plannerContext(),
        ),
      );
    }
  }

  private checkCaps(): Termination | undefined {
    const reason = this.finalizeReason ?? reachedCap(this.usage, this.policy, this.elapsedMs());
    if (!reason || this.finalizeReason) return undefined;
    this.finalizeReason = reason;
    const message = describeCap(reason, this.usage, this.policy);
    this.emit({ type: 'finalize_requested', reason, message });
    return { reason, message };
  }

  /** Calls the planner, validates its result and logs the decision. */
  private async plan(call: () => Promise<PlanResult> | PlanResult): Promise<PlanResult> {
    let raw: PlanResult;
    try {
      raw = await call();
    } catch (err) {
      if (isCancellation(err) || err instanceof ApplicationFailure) throw err;
      const message = err instanceof Error ? err.message : String(err);
      return this.fail('planner_failed', `planner of ${this.agent.name} failed at turn ${this.turn}: ${message}`);
    }
    const parsed = planResultSchema.safeParse(raw);
    if (!parsed.success) {
      return this.fail('invalid_plan', `planner returned an invalid PlanResult at turn ${this.turn}: ${describeIssues(parsed.error)}`);
    }
    const plan = parsed.data;
    for (const note of plan.notes ?? []) this.emit({ type: 'note', turn: this.turn, note });
    return plan;
  }

  /** Assigns ids, validates, dispatches (parallel or sequential) and records one turn's calls. */
  private async runToolTurn(calls: readonly ToolCall[]): Promise<ToolOutput[]> {
    const requests = calls.map((call, index) => this.toRequest(call, index));
    this.emit({
      type: 'plan',
      turn: this.turn,
      decision: 'tool_calls',
      toolCalls: requests.map((r) => ({ toolCallId: r.toolCallId, name: r.name })),
    });
    this.messages.push(assistantToolCalls(requests));
    const allowed = Math.max(0, this.policy.maxToolCalls - this.usage.toolCalls);
    let cancelHint: RetryHint | undefined;
    const runOne = async (request: ToolRequest, index: number): Promise<ToolOutput> => {
      if (index >= allowed) {
        return this.record(this.capRefusal(request));
      }
      const prepared = prepareCall(this.agent.tools, request);
      this.emit({ type: 'tool_call', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args });
      if (prepared.type === 'refused') return this.record(prepared.output);
      this.pending.set(request.toolCallId, request.name);
      // Built per call: sequential calls see session changes of the calls before them.
      const output = await executeCall(this.dispatchContext(), prepared, () => cancelHint);
      return this.record(output);
    };

    const remainingMs = Math.max(1, this.policy.timeBudgetMs - this.elapsedMs());
    const toolScope = new CancellationScope();
    const timerScope = new CancellationScope();
    const work = toolScope.run(async () => {
      if (this.policy.parallelToolCalls) return Promise.all(requests.map(runOne));
      const outputs: ToolOutput[] = [];
      for (const [i, r] of requests.entries()) outputs.push(await runOne(r, i));
      return outputs;
    });
    timerScope
      .run(() => sleep(remainingMs))
      .then(() => {
        cancelHint = { reason: 'timeout', message: 'the run time budget ran out while this call was running' };
        toolScope.cancel();
      })
      .catch((err: unknown) => {
        if (!isCancellation(err)) throw err;
      });
    const outputs = await work;
    timerScope.cancel();
    // Results enter the transcript in call order, whatever order they finished in.
    for (const output of outputs) {
      this.toolOutputs.push(output);
      this.messages.push(toolResultMessage(output));
    }
    return outputs;
  }

  private capRefusal(request: ToolRequest): ToolOutput {
    return {
      toolCallId: request.toolCallId,
      name: request.name,
      args: request.args,
      turn: request.turn,
      status: 'error',
      resultBytes: 0,
      error: { type: 'tool_cap', message: `not run: the tool-call cap of ${this.policy.maxToolCalls} is reached` },
      telemetry: { durationMs: 0 },
    };
  }

  private toRequest(call: ToolCall, index: number): ToolRequest {
    let id = call.id ?? `call_${this.turn}_${index}`;
    for (let n = 2; this.usedCallIds.has(id); n++) id = `${call.id ?? `call_${this.turn}_${index}`}#${n}`;
    this.usedCallIds.add(id);
    return { toolCallId: id, name: call.name, args: call.args, turn: this.turn };
  }

  /** Records an output as it arrives: applies its session changes and logs the result. */
  private record(output: ToolOutput): ToolOutput {
    this.pending.delete(output.toolCallId);
    for (const [key, value] of Object.entries(output.sessionStateChanges ?? {})) {
      if (value === null) delete this.sessionState[key];
      else this.sessionState[key] = value;
    }
    this.emit({
      type: 'tool_result',
      turn: output.turn,
      toolCallId: output.toolCallId,
      name: output.name,
      status: output.status,
      resultBytes: output.resultBytes,
      ...(output.resultOmitted ? { resultOmitted: true } : {}),
      ...(output.error ? { error: output.error } : {}),
      ...(output.retryHint ? { retryHint: output.retryHint } : {}),
      durationMs: output.telemetry.durationMs,
    });
    return output;
  }

  private complete(response: FinalResponse): RunResult {
    this.emit({ type: 'plan', turn: this.turn, decision: 'final' });
    this.messages.push({ role: 'assistant', content: response.text });
    this.emit({ type: 'final', response });
    this.setStatus('completed');
    return {
      status: 'completed',
      final: response,
      ...(this.finalizeReason ? { finalizeReason: this.finalizeReason } : {}),
      iterations: this.usage.iterations,
      cost: this.cost(),
      sessionState: this.sessionState,
      lastEventSeq: this.log.lastSeq,
    };
  }

  private fail(errorType: string, message: string): never {
    this.emit({ type: 'run_failed', errorType, message });
    this.setStatus('failed');
    throw ApplicationFailure.nonRetryable(message, errorType);
  }

  private setStatus(to: RunStatus): void {
    if (to === this.status) return;
    const from = this.status;
    this.status = to;
    this.emit({ type: 'status_changed', from, to });
  }

  private emit(draft: RunEventDraft): void {
    this.log.append(draft);
  }

  private elapsedMs(): number {
    return workflowNowMs() - this.startedAtMs;
  }

  private cost() {
    return costReport(this.usage, this.policy, this.elapsedMs());
  }

  private dispatchContext(): DispatchContext {
    const info = workflowInfo();
    return {
      workflowId: info.workflowId,
      runId: info.runId,
      agent: this.agent.name,
      ...(this.input.sessionId ? { sessionId: this.input.sessionId } : {}),
      resultByteBudget: this.policy.toolResultByteBudget,
      sessionState: { ...this.sessionState },
    };
  }

  private plannerContext(): PlannerContext {
    const info = workflowInfo();
    return {
      runId: info.runId,
      workflowId: info.workflowId,
      agent: this.agent.name,
      turn: this.turn,
      state: recordAgentState(this.plannerState),
      sessionState: this.sessionState,
      emitNote: (note) => this.emit({ type: 'note', turn: this.turn, note }),
    };
  }

  /** Snapshot for the status query. */
  statusReport(): RunStatusReport {
    return {
      status: this.status,
      agent: this.agent.name,
      iteration: this.usage.iterations,
      pendingCalls: [...this.pending].map(([toolCallId, name]) => ({ toolCallId, name })),
      ...(this.finalizeReason ? { finalizeReason: this.finalizeReason } : {}),
      cost: this.cost(),
      lastEventSeq: this.log.lastSeq,
    };
  }

  /**
   * A page of the event log for the events query.
   *
   * @throws Error naming the bad field when the query arguments are invalid.
   */
  eventsPage(rawArgs: unknown): EventPage {
    const args = eventsQueryArgsSchema.safeParse(rawArgs ?? {});
    if (!args.success) throw new Error(`invalid events query arguments: ${describeIssues(args.error)}`);
    return this.log.page(args.data.afterSeq, args.data.limit, this.status);
  }
}
