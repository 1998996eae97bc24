import { AgentClientError, type AgentClient } from '../../client/agent-client';
import type { RunPendingInputs, TreePendingInputs } from '../../client/run-tree';
import type { AwaitAnswer, CallDecision, JsonValue } from '../../contracts';
import { callKey, type UnrecordedCall } from './recorded-tools';
import type { RecordedDecision } from './recording';

/** How often the harness looks for approvals and questions of a candidate run (queries: nothing is written to its history). */
const pollMs = 150;

/** Recorded human inputs of one run, handed out as the candidate asks for them. */
export class RecordedHumans {
  private readonly decisions = new Map<string, RecordedDecision[]>();
  /** Decisions on calls the recording does not describe, by the recorded call id. */
  private readonly byCallId = new Map<string, RecordedDecision>();
  private readonly answers: Readonly<Record<string, JsonValue>>[];
  readonly unrecorded: UnrecordedCall[] = [];
  decided = 0;
  answered = 0;

  /** @param path for a sub-agent run: its call path from the evaluated run. */
  constructor(
    decisions: readonly RecordedDecision[],
    answers: readonly Readonly<Record<string, JsonValue>>[],
    readonly path: readonly string[] = [],
  ) {
    for (const d of decisions) {
      if (d.name === undefined) {
        this.byCallId.set(String(d.decision.toolCallId), d);
        continue;
      }
      const key = callKey(d.name, d.args ?? {});
      this.decisions.set(key, [...(this.decisions.get(key) ?? []), d]);
    }
    this.answers = [...answers];
  }

  /**
   * The decision on a candidate's call waiting for approval: the recorded decision on a call
   * with the same tool and arguments, addressed to the candidate's call id; a reject saying
   * "not recorded" when the recording has none. A decision on a call the recording does not
   * describe (see {@link RecordedDecision}) is taken for the candidate's call of the same id.
   */
  decisionFor(approval: { toolCallId: string; name: string; args: JsonValue; turn: number }): CallDecision {
    const recorded = this.decisions.get(callKey(approval.name, approval.args))?.shift() ?? this.takeByCallId(approval.toolCallId);
    if (!recorded) {
      this.unrecorded.push({ kind: 'approval', turn: approval.turn, name: approval.name, args: approval.args, reason: 'no recorded decision on this tool with these arguments', ...this.where() });
      return { decision: 'reject', toolCallId: approval.toolCallId, reason: 'not recorded: the recording has no decision on this call' };
    }
    this.decided++;
    return { ...(recorded.decision as unknown as CallDecision), toolCallId: approval.toolCallId };
  }

  /** The path of a sub-agent run, for its unrecorded entries. */
  where(): { path?: readonly string[] } {
    return this.path.length ? { path: this.path } : {};
  }

  private takeByCallId(toolCallId: string): RecordedDecision | undefined {
    const decision = this.byCallId.get(toolCallId);
    this.byCallId.delete(toolCallId);
    return decision;
  }

  /** The recorded answer to an await item: the next recorded answer of its kind, addressed to the item, or undefined. */
  answerFor(item: { id: string; kind: string; item: JsonValue }): AwaitAnswer | undefined {
    const index = this.answers.findIndex((a) => a.kind === item.kind);
    if (index < 0) {
      this.unrecorded.push({ kind: 'answer', name: item.kind, args: item.item, reason: `no recorded answer of kind ${item.kind}`, ...this.where() });
      return undefined;
    }
    const [recorded] = this.answers.splice(index, 1);
    this.answered++;
    return { ...(recorded as unknown as AwaitAnswer), itemId: item.id };
  }
}

/** Whether an error is the run refusing an input (its validator said why), not a failure to reach it. */
function isRefusal(err: unknown): boolean {
  return err instanceof AgentClientError && err.type === 'rejected';
}

/**
 * Answers one await item with the recorded answers of its kind, in order, until the run takes
 * one (a recorded answer the run refused then was refused now too); kills the run when none is
 * left, since nothing else could answer it.
 */
async function answerItem(agents: AgentClient, workflowId: string, humans: RecordedHumans, item: { id: string; kind: string; item: JsonValue }): Promise<void> {
  for (let answer = humans.answerFor(item); answer; answer = humans.answerFor(item)) {
    try {
      await agents.answer(workflowId, answer);
      return;
    } catch (err) {
      if (!isRefusal(err)) throw err;
    }
  }
  await agents.kill(workflowId, { reason: `evaluation: the recording has no answer to a ${item.kind} item that the run takes` });
}

/**
 * Answers the approvals and await items of a candidate run and its sub-agent runs from the
 * recording until the run ends, each run from the recorded humans `humansOf` gives it (none: a
 * run not being evaluated, left alone). An await item the recording cannot answer ends its run
 * (kill): nothing could answer it. Never rejects: a failure to reach the run is returned (the run
 * then ends by its time limit).
 */
export async function answerFromRecording(
  agents: AgentClient,
  workflowId: string,
  humansOf: (workflowId: string) => Promise<RecordedHumans | undefined>,
  ended: () => boolean,
): Promise<string | undefined> {
  const seen = new Set<string>();
  try {
    while (!ended()) {
      let pending: RunPendingInputs;
      try {
        pending = await agents.pendingInputs(workflowId, { timeoutMs: 10_000 });
      } catch (err) {
        if (ended()) return undefined;
        throw err;
      }
      for (const run of pending.tree) {
        const humans = await humansOf(run.workflowId);
        if (humans) await answerRun(agents, run, humans, seen);
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
    return undefined;
  } catch (err) {
    if (ended()) return undefined;
    return `answering the run's humans failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Decides and answers what one run of the tree waits on, once each (`seen`). */
async function answerRun(agents: AgentClient, run: TreePendingInputs, humans: RecordedHumans, seen: Set<string>): Promise<void> {
  const { workflowId } = run;
  for (const approval of run.approvals) {
    if (seen.has(`${workflowId}\u0000${approval.toolCallId}`)) continue;
    seen.add(`${workflowId}\u0000${approval.toolCallId}`);
    const decision = humans.decisionFor(approval);
    await agents.decide(workflowId, decision).catch((err: unknown) => {
      if (!isRefusal(err)) throw err;
      // The recorded decision does not fit the candidate's call (an edit to arguments its tool now refuses): decided as not recorded.
      humans.unrecorded.push({ kind: 'approval', turn: approval.turn, name: approval.name, args: approval.args, reason: `the recorded decision was refused: ${err instanceof Error ? err.message : String(err)}`, ...humans.where() });
      return agents.decide(workflowId, { decision: 'reject', toolCallId: approval.toolCallId, reason: 'not recorded: the recorded decision does not fit this call' });
    });
  }
  for (const item of run.await?.items ?? []) {
    const id = `${workflowId}\u0000${run.await?.awaitId}/${item.id}`;
    if (item.answered || seen.has(id)) continue;
    seen.add(id);
    await answerItem(agents, workflowId, humans, item);
  }
}
