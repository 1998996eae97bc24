import type { DependencyOutput, ToolError, ToolOutput, ToolRequest, WrittenOutput } from '../../contracts/tools';
import { describeEnding, graphProblems } from '../state/call-graph';
import { errorOutput } from '../kernel/outputs';

/**
 * The scheduling decisions of a dependency-aware turn, as plain data and plain functions: which
 * call may start, which must be answered without running, which alternative won an output path
 * and which lost. Nothing here awaits or touches Temporal: the turn machine (turn-machine.ts,
 * `scanTurn` and `callEnded`) takes its graph decisions here, and its unit tests
 * (test/unit/turn-machine-graph.test.ts) drive them without a workflow.
 *
 * A call starts once the calls it depends on have succeeded, in plan order when several become
 * ready at once, within the turn's concurrency slots. A call whose dependency did not succeed is
 * answered `dependency_failed`. Calls sharing an output path are alternatives: the first success
 * writes the path, and the others lose (they are cancelled, or never started).
 */
export interface GraphSchedule {
  readonly requests: readonly ToolRequest[];
  /** Calls that can never run because of the plan's shape, and why (see graphProblems). */
  readonly problems: ReadonlyMap<string, string>;
  readonly byId: ReadonlyMap<string, ToolRequest>;
  /** How many calls may run at once: 1 when the run's calls are sequential. */
  readonly slots: number;
  /** Every call answered so far, run or not. */
  readonly outputs: Map<string, ToolOutput>;
  /** Output path -> the call of this turn that won it. */
  readonly winners: Map<string, string>;
  /** Call -> the alternative that won its output path instead. */
  readonly lostTo: Map<string, string>;
  /** Calls started or answered without running. */
  readonly started: Set<string>;
  running: number;
  /** Calls answered so far; a scan that leaves it unchanged has nothing more to start. */
  settled: number;
}

/** What to do with one call of the plan now. */
export type CallDecision =
  | { readonly kind: 'wait' }
  | { readonly kind: 'close'; readonly type: ToolError['type']; readonly message: string }
  | { readonly kind: 'run'; readonly dependencies: DependencyOutput[] };

/** A new schedule for the requests of one plan. */
export function graphSchedule(requests: readonly ToolRequest[], parallel: boolean): GraphSchedule {
  return {
    requests,
    problems: graphProblems(requests),
    byId: new Map(requests.map((r) => [r.toolCallId, r])),
    slots: parallel ? Number.POSITIVE_INFINITY : 1,
    outputs: new Map(),
    winners: new Map(),
    lostTo: new Map(),
    started: new Set(),
    running: 0,
    settled: 0,
  };
}

/** Whether every call of the plan has its answer. */
export function allAnswered(s: GraphSchedule): boolean {
  return s.outputs.size >= s.requests.length;
}

/** Whether a call may be considered in this scan: not started yet, and a slot is free. */
export function mayConsider(s: GraphSchedule, r: ToolRequest): boolean {
  return !s.started.has(r.toolCallId) && s.running < s.slots;
}

/**
 * Decides one call that {@link mayConsider}: wait for its dependencies, answer it without running
 * (its turn was cancelled, the plan's shape or a failed dependency rules it out, its output path
 * is taken), or run it with its dependencies' outputs. `writtenOutput` is the run's record of
 * paths written in earlier turns. Records the call's loss when an alternative already won.
 */
export function decideCall(s: GraphSchedule, r: ToolRequest, turnCancelled: boolean, writtenOutput: (path: string) => WrittenOutput | undefined): CallDecision {
  if (turnCancelled) return { kind: 'close', type: 'cancelled', message: 'not run: its turn was cancelled before it could start' };
  const problem = s.problems.get(r.toolCallId);
  if (problem) return { kind: 'close', type: 'dependency_failed', message: `not run: ${problem}` };
  const path = r.outputPath;
  if (path !== undefined) {
    const winner = s.winners.get(path);
    if (winner !== undefined) {
      s.lostTo.set(r.toolCallId, winner);
      return { kind: 'close', type: 'cancelled', message: `not run: its alternative ${winner} already wrote output path ${path}` };
    }
    const earlier = writtenOutput(path);
    if (earlier) {
      return { kind: 'close', type: 'output_conflict', message: `not run: output path ${path} was already written by call ${earlier.toolCallId} (turn ${earlier.turn}); output paths are write-once` };
    }
  }
  const dependencies: DependencyOutput[] = [];
  for (const d of r.dependsOn ?? []) {
    const ended = s.outputs.get(d);
    if (!ended) return { kind: 'wait' };
    const from = ended.status === 'ok' ? d : s.lostTo.get(d);
    const source = from !== undefined ? s.outputs.get(from) : undefined;
    if (!source || source.status !== 'ok') {
      return { kind: 'close', type: 'dependency_failed', message: `not run: it depends on ${d} (${ended.name}), which ${describeEnding(ended)}` };
    }
    dependencies.push(dependencyOutput(d, source, s.byId.get(from!)?.outputPath));
  }
  return { kind: 'run', dependencies };
}

/** Records a call answered without running (its {@link decideCall} said close). */
export function recordClosed(s: GraphSchedule, r: ToolRequest, output: ToolOutput): void {
  s.started.add(r.toolCallId);
  s.outputs.set(r.toolCallId, output);
  s.settled += 1;
}

/** Records a call started (its {@link decideCall} said run): it takes a slot. */
export function recordStarted(s: GraphSchedule, r: ToolRequest): void {
  s.started.add(r.toolCallId);
  s.running += 1;
}

/**
 * A call's output before it is recorded: the first success on an output path wins it; a later
 * success of an alternative (its cancellation came too late: the tool ran) becomes an
 * `output_conflict`, and the path keeps the first.
 */
export function settleAlternative(s: GraphSchedule, r: ToolRequest, output: ToolOutput): ToolOutput {
  const path = r.outputPath;
  if (output.status !== 'ok' || path === undefined) return output;
  const winner = s.winners.get(path);
  if (winner === undefined) {
    s.winners.set(path, r.toolCallId);
    return output;
  }
  s.lostTo.set(r.toolCallId, winner);
  const conflict = errorOutput(
    r,
    { type: 'output_conflict', message: `finished after its alternative ${winner} had written output path ${path}; its result was not written` },
    undefined,
    output.telemetry.durationMs,
  );
  return output.sessionStateChanges ? { ...conflict, sessionStateChanges: output.sessionStateChanges } : conflict;
}

/** Records a started call's output: its slot is free again. */
export function recordEnded(s: GraphSchedule, r: ToolRequest, output: ToolOutput): void {
  s.outputs.set(r.toolCallId, output);
  s.running -= 1;
  s.settled += 1;
}

/**
 * After a call's output is recorded: when it won its output path, the path to write and the
 * alternatives still running, which lose now (the driver cancels them; those not started are
 * answered when reached).
 */
export function pathWon(s: GraphSchedule, r: ToolRequest, output: ToolOutput): { readonly path: string; readonly losers: readonly string[] } | undefined {
  const path = r.outputPath;
  if (path === undefined || s.winners.get(path) !== r.toolCallId || output.status !== 'ok') return undefined;
  const losers: string[] = [];
  for (const other of s.requests) {
    if (other.outputPath !== path || other === r || !s.started.has(other.toolCallId) || s.outputs.has(other.toolCallId)) continue;
    s.lostTo.set(other.toolCallId, r.toolCallId);
    losers.push(other.toolCallId);
  }
  return { path, losers };
}

/** Why the turn cancelled a call (an alternative won its path), once it did. */
export function lostMessage(s: GraphSchedule, r: ToolRequest): string | undefined {
  const winner = s.lostTo.get(r.toolCallId);
  return winner !== undefined ? `cancelled: its alternative ${winner} wrote output path ${r.outputPath} first` : undefined;
}

function dependencyOutput(named: string, source: ToolOutput, outputPath: string | undefined): DependencyOutput {
  return {
    toolCallId: named,
    fromToolCallId: source.toolCallId,
    name: source.name,
    ...(outputPath ? { outputPath } : {}),
    ...(source.result !== undefined ? { result: source.result } : {}),
    ...(source.resultOmitted ? { resultOmitted: true } : {}),
    ...(source.resultPreview !== undefined ? { resultPreview: source.resultPreview } : {}),
  };
}
