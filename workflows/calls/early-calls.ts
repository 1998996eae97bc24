import { CancellationScope } from '@temporalio/workflow';
import type { ToolOutput, ToolRequest } from '../../contracts/tools';
import type { CallsRun } from './calls-run';
import { prepareCall } from './call-rules';
import type { DispatchableCall } from './turn-machine';

/** A call started while the model was still answering (early dispatch). */
export interface EarlyCall {
  readonly request: ToolRequest;
  readonly scope: CancellationScope;
  readonly promise: Promise<ToolOutput>;
}

function sameCall(a: ToolRequest, b: ToolRequest): boolean {
  return a.toolCallId === b.toolCallId && a.name === b.name && JSON.stringify(a.args) === JSON.stringify(b.args);
}

/** How an early call is checked and started (the call rules and the dispatch). */
export interface EarlyCallHost {
  needsConfirmation(call: DispatchableCall): boolean;
  execute(call: DispatchableCall): Promise<ToolOutput>;
}

/**
 * The calls of one planner turn started while the model still answers (early dispatch): a plan
 * claims those it contains (same id, tool and arguments); the others are cancelled, answered once
 * they stopped, and logged as discarded.
 */
export class EarlyCalls {
  /** Calls started early in the current planner turn, by call id, until the plan claims them. */
  private readonly early = new Map<string, EarlyCall>();
  /** Early calls the plan did not claim: cancelled, answered once they stopped. */
  private orphans: EarlyCall[] = [];

  constructor(
    private readonly state: CallsRun,
    private readonly host: EarlyCallHost,
  ) {}

  /** How many calls were started early in the current planner turn. */
  get count(): number {
    return this.early.size;
  }

  /** True while an early call, claimed or not, may still run. */
  get busy(): boolean {
    return this.early.size > 0 || this.orphans.length > 0;
  }

  /**
   * Starts a call the model activity reported while the model still answers, if it is a valid
   * call of a `startEarly` tool that needs no confirmation.
   */
  start(request: ToolRequest): boolean {
    const { state } = this;
    if (this.early.has(request.toolCallId) || state.control.blockReason(request.name)) return false;
    const prepared = prepareCall(state.tools(), request);
    if (prepared.type !== 'dispatch' || !prepared.tool.startEarly || this.host.needsConfirmation(prepared)) return false;
    state.emit({ type: 'tool_call', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args, early: true });
    const scope = new CancellationScope();
    const promise = scope.run(() => this.host.execute(prepared));
    this.early.set(request.toolCallId, { request, scope, promise });
    return true;
  }

  /** The early call a planned call is, if the plan claims it as it was started. */
  claim(planned: ToolRequest): EarlyCall | undefined {
    const early = this.early.get(planned.toolCallId);
    if (!early || !sameCall(early.request, planned)) return undefined;
    this.early.delete(planned.toolCallId);
    return early;
  }

  /** A plan begins: the early calls it does not contain stop now. */
  stopUnclaimed(requests: readonly ToolRequest[]): void {
    for (const [id, call] of this.early) {
      if (requests.some((r) => sameCall(r, call.request))) continue;
      this.early.delete(id);
      this.orphans.push(call);
      call.scope.cancel();
    }
  }

  /** Cancels every early call (a kill): they are answered by {@link discard}. */
  cancel(): void {
    for (const call of this.early.values()) call.scope.cancel();
  }

  /** Cancels and waits for the early calls no plan claimed, and logs them as discarded. */
  async discard(reason: string): Promise<void> {
    this.orphans.push(...this.early.values());
    this.early.clear();
    await this.settleOrphans(reason);
  }

  /** At a turn's end: waits for the early calls its plan did not claim, if any (undefined: none). */
  settleUnclaimed(): Promise<void> | undefined {
    return this.orphans.length ? this.settleOrphans('the final answer has no such call') : undefined;
  }

  private async settleOrphans(reason: string): Promise<void> {
    const orphans = this.orphans;
    this.orphans = [];
    for (const call of orphans) call.scope.cancel();
    for (const call of orphans) {
      const output = await call.promise;
      const { request } = call;
      const detail = output.status === 'cancelled' ? reason : `${reason} (it had already ended: ${output.status})`;
      this.state.emit({ type: 'early_call_discarded', turn: request.turn, toolCallId: request.toolCallId, name: request.name, reason: detail });
    }
  }
}
