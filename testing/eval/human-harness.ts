import type { AgentClient } from '../../client/agent-client';
import type { AwaitAnswer, CallDecision, JsonValue, PendingInputs } from '../../contracts';
import { callKey, type UnrecordedCall } from './recorded-tools';
import type { RecordedDecision } from './recording';

/** How often the harness looks for approvals and questions of a candidate run (queries: nothing is written to its history). */
const pollMs = 150;

/** Recorded human inputs of one run, handed out as the candidate asks for them. */
export class RecordedHumans {
  private readonly decisions = new Map<string, RecordedDecision[]>();
  private readonly answers: Readonly<Record<string, JsonValue>>[];
  readonly unrecorded: UnrecordedCall[] = [];
  decided = 0;
  answered = 0;

  constructor(decisions: readonly RecordedDecision[], answers: readonly Readonly<Record<string, JsonValue>>[]) {
    for (const d of decisions) {
      const key = callKey(d.name, d.args);
      this.decisions.set(key, [...(this.decisions.get(key) ?? []), d]);
    }
    this.answers = [...answers];
  }

  /**
   * The decision on a candidate's call waiting for approval: the recorded decision on a call
   * with the same tool and arguments, addressed to the candidate's call id; a reject saying
   * "not recorded" when the recording has none.
   */
  decisionFor(approval: { toolCallId: string; name: string; args: JsonValue; turn: number }): CallDecision {
    const recorded = this.decisions.get(callKey(approval.name, approval.args))?.shift();
    if (!recorded) {
      this.unrecorded.push({ kind: 'approval', turn: approval.turn, name: approval.name, args: approval.args, reason: 'no recorded decision on this tool with these arguments' });
      return { decision: 'reject', toolCallId: approval.toolCallId, reason: 'not recorded: the recording has no decision on this call' };
    }
    this.decided++;
    return { ...(recorded.decision as unknown as CallDecision), toolCallId: approval.toolCallId };
  }

  /** The recorded answer to an await item: the next recorded answer of its kind, addressed to the item, or undefined. */
  answerFor(item: { id: string; kind: string; item: JsonValue }): AwaitAnswer | undefined {
    const index = this.answers.findIndex((a) => a.kind === item.kind);
    if (index < 0) {
      this.unrecorded.push({ kind: 'answer', name: item.kind, args: item.item, reason: `no recorded answer of kind ${item.kind}` });
      return undefined;
    }
    const [recorded] = this.answers.splice(index, 1);
    this.answered++;
    return { ...(recorded as unknown as AwaitAnswer), itemId: item.id };
  }
}

/**
 * Answers a candidate run's approvals and await items from the recording until the run ends.
 * An await item the recording cannot answer ends the run (kill): nothing could answer it.
 */
export async function answerFromRecording(agents: AgentClient, workflowId: string, humans: RecordedHumans, ended: () => boolean): Promise<void> {
  const seen = new Set<string>();
  while (!ended()) {
    let pending: PendingInputs;
    try {
      pending = await agents.pendingInputs(workflowId, { subAgents: false, timeoutMs: 10_000 });
    } catch (err) {
      if (ended()) return;
      throw err;
    }
    for (const approval of pending.approvals) {
      if (seen.has(approval.toolCallId)) continue;
      seen.add(approval.toolCallId);
      await agents.decide(workflowId, humans.decisionFor(approval));
    }
    for (const item of pending.await?.items ?? []) {
      const id = `${pending.await?.awaitId}/${item.id}`;
      if (item.answered || seen.has(id)) continue;
      seen.add(id);
      const answer = humans.answerFor(item);
      if (answer) await agents.answer(workflowId, answer);
      else await agents.kill(workflowId, { reason: `evaluation: the recording has no answer to a ${item.kind} item` });
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
