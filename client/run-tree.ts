import type { AwaitAnswer, CallDecision, PendingInputs, RunEvent, RunStatus } from '../contracts';
import { fetchDecodedHistory } from '../history/decoded-history';
import { AgentClientError } from './errors';
import type { QueryOptions } from './query-options';
import type { TreeRuns } from './tree-runs';
import { childRunFor, recordedChildRuns } from './recorded-children';

/** A run and the sub-agent runs its agent tools started, recursively. */
export interface RunTree {
  readonly workflowId: string;
  readonly agent: string;
  readonly status: RunStatus | 'failed';
  /** Call ids from the root run to this run (empty for the root). */
  readonly path: readonly string[];
  /** The call of the parent this run answers (absent for the root). */
  readonly toolCallId?: string;
  readonly children: readonly RunTree[];
}

/** What one run of a tree waits on from humans. */
export interface TreePendingInputs extends PendingInputs {
  readonly workflowId: string;
  readonly path: readonly string[];
}

/**
 * What a run waits on from humans: its own calls and await (the fields of PendingInputs), and
 * `tree`, everything the run and its sub-agent runs wait on as one list.
 */
export interface RunPendingInputs extends PendingInputs {
  /**
   * One entry per run of the tree that waits for something (this run first, then its sub-agent
   * runs depth first), each with its workflow id and path: the call ids from this run down
   * (empty for this run). Decide or answer an entry of a sub-agent run by that path.
   */
  readonly tree: readonly TreePendingInputs[];
}

/** An event of some run of a tree, with where it happened. */
export interface TreeEvent {
  readonly workflowId: string;
  readonly path: readonly string[];
  readonly event: RunEvent;
}

/** The tree of a run: its sub-agent runs, theirs, and so on (status queries, one per run). */
export async function runTree(agents: TreeRuns, workflowId: string, options: QueryOptions = {}): Promise<RunTree> {
  return subTree(agents, workflowId, [], undefined, options);
}

async function subTree(agents: TreeRuns, workflowId: string, path: readonly string[], toolCallId: string | undefined, options: QueryOptions): Promise<RunTree> {
  const report = await agents.run(workflowId).status(options);
  const children = await Promise.all((report.children ?? []).map((c) => subTree(agents, c.workflowId, [...path, c.toolCallId], c.toolCallId, options)));
  return { workflowId, agent: report.agent, status: report.status, path, ...(toolCallId ? { toolCallId } : {}), children };
}

/** A run and its sub-agent runs as their histories record them, for when no worker answers. */
export interface RecordedRunTree {
  readonly workflowId: string;
  readonly agent: string | null;
  /** As last recorded: the run's AgentStatus while it runs, Temporal's status once closed. */
  readonly status: string;
  readonly path: readonly string[];
  readonly toolCallId?: string;
  readonly children: readonly RecordedRunTree[];
}

/**
 * The tree of a run read from histories, with no worker involved: each run's recorded status,
 * and as its children the sub-agent runs its history started (child workflows, whose ids end
 * with the call id that started them).
 */
export async function recordedRunTree(agents: TreeRuns, workflowId: string, path: readonly string[] = [], toolCallId?: string): Promise<RecordedRunTree> {
  const recorded = await agents.run(workflowId).statusFromHistory();
  const { events } = await fetchDecodedHistory(agents.client, workflowId, recorded.runId);
  const children = await Promise.all(recordedChildRuns(events ?? []).map((c) => recordedRunTree(agents, c.workflowId, [...path, c.toolCallId], c.toolCallId)));
  return { workflowId, agent: recorded.agent, status: recorded.status, path, ...(toolCallId ? { toolCallId } : {}), children };
}

function flatten(tree: RunTree): RunTree[] {
  return [tree, ...tree.children.flatMap(flatten)];
}

/** Whether a run waits for a decision or an answer. */
export function hasPendingInputs(p: PendingInputs): boolean {
  return p.approvals.length > 0 || p.await !== undefined;
}

/**
 * Everything the runs of a tree wait on from humans, each with the run that owns it. A parent
 * lists a child once it has seen it start, which can be a moment after the child runs.
 *
 * Without `tree`, each run is asked for its status (its sub-agent runs) and its pending inputs
 * at once: one wait per level of the tree, not two in a row (right after a worker crash each
 * query waits until another worker takes the run).
 *
 * @param tree the tree of `workflowId` when the caller has it already.
 */
export async function pendingInputsTree(agents: TreeRuns, workflowId: string, tree?: RunTree, options: QueryOptions = {}): Promise<TreePendingInputs[]> {
  if (!tree) return (await pendingBelow(agents, workflowId, [], options)).filter(hasPendingInputs);
  const open = flatten(tree).filter((r) => !isTerminal(r.status));
  const pending = await Promise.all(
    open.map(async (r) => {
      const inputs = await agents.run(r.workflowId).pendingInputs({ ...options, subAgents: false });
      return { workflowId: r.workflowId, path: r.path, approvals: inputs.approvals, ...(inputs.await ? { await: inputs.await } : {}) };
    }),
  );
  return pending.filter(hasPendingInputs);
}

function isTerminal(status: string): boolean {
  return ['completed', 'failed', 'terminated'].includes(status);
}

/** The pending inputs of an open run and of its open sub-agent runs, depth first (its status and its pending inputs read at once). */
async function pendingBelow(agents: TreeRuns, workflowId: string, path: readonly string[], options: QueryOptions): Promise<TreePendingInputs[]> {
  const [report, inputs] = await Promise.allSettled([agents.run(workflowId).status(options), agents.run(workflowId).pendingInputs({ ...options, subAgents: false })]);
  if (report.status === 'rejected') throw report.reason;
  // A closed run waits on nothing (it may not even answer the second query: it ended before registering it).
  if (isTerminal(report.value.status)) return [];
  if (inputs.status === 'rejected') throw inputs.reason;
  const own = { workflowId, path, approvals: inputs.value.approvals, ...(inputs.value.await ? { await: inputs.value.await } : {}) };
  const open = (report.value.children ?? []).filter((c) => !isTerminal(c.status));
  const below = await Promise.all(open.map((c) => pendingBelow(agents, c.workflowId, [...path, c.toolCallId], options)));
  return [own, ...below.flat()];
}

/**
 * The sub-agent runs under `workflowId` where a call with this id waits for a decision, for an
 * error that says where to decide it instead.
 */
export async function subRunsWaitingOnCall(agents: TreeRuns, workflowId: string, toolCallId: string): Promise<TreePendingInputs[]> {
  const tree = await pendingInputsTree(agents, workflowId);
  return tree.filter((p) => p.path.length > 0 && p.approvals.some((a) => a.toolCallId === toolCallId));
}

/**
 * Throws `err`, a decision the run refused: when the call waits in a sub-agent run instead, with
 * that run's path added, so the caller can decide it there ({@link decideInTree}).
 */
export async function rethrowWithSubRunHint(err: unknown, agents: TreeRuns, workflowId: string, toolCallId: string): Promise<never> {
  if (!(err instanceof AgentClientError) || err.type !== 'rejected') throw err;
  const below = await subRunsWaitingOnCall(agents, workflowId, toolCallId).catch(() => []);
  if (below.length === 0) throw err;
  const where = below.map((p) => `at path ${p.path.join('/')} (${p.workflowId}): decide it there (--path ${p.path.join('/')})`).join('; or ');
  throw new AgentClientError('rejected', `${err.message}; ${toolCallId} waits in the sub-agent run ${where}`, err.refusal);
}

/** A tree path naming a call that started no sub-agent run in the run it reached. */
export class TreePathError extends Error {
  constructor(
    /** The position in the path of the call that started no sub-agent run. */
    readonly index: number,
    /** The run that has no sub-agent run for that call. */
    readonly workflowId: string,
    readonly toolCallId: string,
    path: readonly string[],
  ) {
    super(`run ${workflowId} has no sub-agent run for call ${toolCallId} (path ${path.slice(0, index + 1).join('/')})`);
    this.name = 'TreePathError';
  }
}

/**
 * The workflow id of the run at `path` under `workflowId` (call ids from that run down): from
 * each run's status, or its history when no worker answers (so a decision for a sub-agent run
 * can be queued like one for the top run).
 *
 * @throws TreePathError naming the first call id of the path that started no sub-agent.
 */
export async function resolveTreePath(agents: TreeRuns, workflowId: string, path: readonly string[]): Promise<string> {
  let current = workflowId;
  for (const [i, toolCallId] of path.entries()) {
    const child = await childRunFor(agents, current, toolCallId);
    if (!child) throw new TreePathError(i, current, toolCallId, path);
    current = child;
  }
  return current;
}

/** Decides a call waiting for approval anywhere in the tree: routed to the run that owns it. */
export async function decideInTree(agents: TreeRuns, workflowId: string, path: readonly string[], decision: CallDecision): Promise<PendingInputs> {
  return agents.run(await resolveTreePath(agents, workflowId, path)).decide(decision);
}

/** Answers an await item anywhere in the tree: routed to the run that owns it. */
export async function answerInTree(agents: TreeRuns, workflowId: string, path: readonly string[], answer: AwaitAnswer): Promise<PendingInputs> {
  return agents.run(await resolveTreePath(agents, workflowId, path)).answer(answer);
}

/** The runs of a tree, root first (depth first), without nesting. */
export function flattenTree(tree: RunTree): Omit<RunTree, 'children'>[] {
  return flatten(tree).map(({ children: _children, ...run }) => run);
}

/**
 * Follows a run and every sub-agent run it starts (as they start), until all of them ended.
 * Each event comes with its run's path; events of one run are in order, runs interleave.
 */
export async function* followTree(agents: TreeRuns, workflowId: string, options: { mode?: 'long-poll' | 'poll'; pollMs?: number } = {}): AsyncGenerator<TreeEvent> {
  const queue: TreeEvent[] = [];
  let wake: (() => void) | undefined;
  let active = 0;
  let failure: unknown;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  const follow = (id: string, path: readonly string[]): void => {
    active += 1;
    void (async () => {
      try {
        for await (const event of agents.run(id).follow(options)) {
          queue.push({ workflowId: id, path, event });
          if (event.type === 'child_started') follow(event.workflowId, [...path, event.toolCallId]);
          notify();
        }
      } catch (err) {
        failure ??= err;
      } finally {
        active -= 1;
        notify();
      }
    })();
  };
  follow(workflowId, []);
  for (;;) {
    const next = queue.shift();
    if (next) {
      yield next;
      continue;
    }
    if (failure !== undefined) throw failure;
    if (active === 0) return;
    await new Promise<void>((resolve) => (wake = resolve));
  }
}
