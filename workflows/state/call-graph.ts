import type { ToolCall, ToolOutput, ToolRequest, WrittenOutput } from '../../contracts/tools';

/**
 * The requests of one plan, with `dependsOn` resolved from the planner's ids to the run-unique
 * ids the runtime assigned (`ids[i]` is the id of `calls[i]`). A planner id that two calls of the
 * plan share names the first of them; an id that names no call of the plan is kept as it is, and
 * the turn answers the dependent call as `dependency_failed`.
 */
export function withCallGraph(calls: readonly ToolCall[], ids: readonly string[], turn: number): ToolRequest[] {
  const byPlannerId = new Map<string, string>();
  calls.forEach((call, i) => {
    if (call.id !== undefined && !byPlannerId.has(call.id)) byPlannerId.set(call.id, ids[i]!);
  });
  return calls.map((call, i) => ({
    toolCallId: ids[i]!,
    name: call.name,
    args: call.args,
    turn,
    ...(call.dependsOn?.length ? { dependsOn: call.dependsOn.map((d) => byPlannerId.get(d) ?? d) } : {}),
    ...(call.outputPath ? { outputPath: call.outputPath } : {}),
  }));
}

/** Whether a plan uses dependencies or output paths (otherwise its turn runs as it always did). */
export function usesCallGraph(requests: readonly ToolRequest[]): boolean {
  return requests.some((r) => r.dependsOn !== undefined || r.outputPath !== undefined);
}

/**
 * Why a call of the plan can never run because of the plan's shape: it depends on itself, on a
 * call that is not in the plan, or on a cycle. Calls that only depend on such calls are not
 * listed: they are answered when their dependency is.
 */
export function graphProblems(requests: readonly ToolRequest[]): Map<string, string> {
  const byId = new Map(requests.map((r) => [r.toolCallId, r]));
  const problems = new Map<string, string>();
  for (const r of requests) {
    const unknown = (r.dependsOn ?? []).filter((d) => !byId.has(d));
    if (unknown.length) problems.set(r.toolCallId, `dependsOn names ${unknown.map((u) => JSON.stringify(u)).join(', ')}, which ${unknown.length > 1 ? 'are not calls' : 'is not a call'} of this plan`);
  }
  // Cycles: depth-first search in plan order, so the reported cycle is deterministic.
  const done = new Set<string>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (id: string): void => {
    if (done.has(id)) return;
    if (onStack.has(id)) {
      const cycle = [...stack.slice(stack.indexOf(id)), id];
      for (const member of cycle) if (!problems.has(member)) problems.set(member, `dependency cycle: ${cycle.join(' -> ')}`);
      return;
    }
    onStack.add(id);
    stack.push(id);
    for (const d of byId.get(id)?.dependsOn ?? []) if (byId.has(d)) visit(d);
    stack.pop();
    onStack.delete(id);
    done.add(id);
  };
  for (const r of requests) visit(r.toolCallId);
  return problems;
}

/** One line about how a call ended, for the message of a call that depended on it. */
export function describeEnding(output: ToolOutput): string {
  if (output.status === 'ok') return 'succeeded';
  const error = output.error ? `${output.error.type}: ${output.error.message}` : output.status;
  return `ended with ${error}`;
}

/**
 * The output paths to carry into the next execution: values written before `oldestKeptTurn`
 * are dropped (as old turns' results are), the record of who wrote the path stays, so the path
 * remains write-once.
 */
export function carriedOutputs(outputs: ReadonlyMap<string, WrittenOutput>, oldestKeptTurn: number): Record<string, WrittenOutput> {
  const carried: Record<string, WrittenOutput> = {};
  for (const [path, written] of outputs) {
    if (written.turn >= oldestKeptTurn || written.value === undefined) carried[path] = written;
    else carried[path] = { toolCallId: written.toolCallId, turn: written.turn, valueOmitted: true };
  }
  return carried;
}
