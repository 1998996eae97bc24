import { AgentClientError, type AgentClient } from '../../client/agent-client';
import type { AwaitAnswer, CallDecision, PendingInputs, RunEvent } from '../../contracts';
import { openItems, type OpenItem } from '../hitl/answers';
import type { PendingApproval } from '../hitl/render';
import { askAnswer } from './answer-prompts';
import { askDecision } from './decision-prompt';
import { EndOfInput, type Prompter } from './prompter';

const done: Record<CallDecision['decision'], string> = { approve: 'approved', reject: 'rejected', edit: 'edited', replace: 'replaced' };

/** How sending a decision or an answer went. */
type Sent = 'sent' | 'refused' | 'ended';

/**
 * One `interactive` attachment to a run: prints its events, and prompts for every call that
 * waits for confirmation and every open await item, sending what the user types. A refusal
 * by the run is printed and asked again while the input is still wanted.
 */
export class InteractiveSession {
  /** Seq of the last event printed. */
  lastSeq: number;

  constructor(
    private readonly agents: AgentClient,
    private readonly runId: string,
    private readonly prompter: Prompter,
    private readonly print: (event: RunEvent) => void,
    private readonly options: { readonly afterSeq: number; readonly by?: string },
  ) {
    this.lastSeq = options.afterSeq;
  }

  /**
   * Prints the events so far, settles what is pending, then follows until the run ends.
   *
   * @param idleEnd when it resolves while no prompt is shown, the session detaches (a terminal's Ctrl-D).
   * @throws EndOfInput when input ends (the run is untouched).
   */
  async run(idleEnd?: Promise<void>): Promise<void> {
    for (;;) {
      const page = await this.agents.events(this.runId, this.lastSeq, 1000);
      page.events.forEach((e) => this.show(e));
      if (page.events.length === 0) break;
    }
    await this.settlePending();
    const events = this.agents.follow(this.runId, { afterSeq: this.lastSeq });
    const detached = idleEnd?.then(() => 'detached' as const);
    for (;;) {
      const next = events.next();
      const step = detached ? await Promise.race([next, detached]) : await next;
      if (step === 'detached') {
        next.catch(() => undefined);
        throw new EndOfInput();
      }
      if (step.done) return;
      this.show(step.value);
      if (step.value.type === 'approval_requested' || step.value.type === 'await_opened') await this.settlePending();
    }
  }

  private show(event: RunEvent): void {
    this.print(event);
    this.lastSeq = event.seq;
  }

  /** Prompts for each call waiting for confirmation, then each unanswered await item, until none is left. */
  async settlePending(): Promise<void> {
    for (;;) {
      const pending = await this.agents.pendingInputs(this.runId, { subAgents: false });
      const [approval] = pending.approvals;
      const item = openItems(pending).find((i) => !i.answered);
      const outcome = approval ? await this.settleApproval(approval) : item ? await this.settleItem(item) : 'ended';
      if (outcome === 'ended') return;
    }
  }

  private async settleApproval(approval: PendingApproval): Promise<Sent> {
    for (;;) {
      const decision: CallDecision = await askDecision(this.prompter, approval, this.options.by);
      const sent = await this.send(`${done[decision.decision]} ${approval.toolCallId}`, () => this.agents.decide(this.runId, decision));
      if (sent !== 'refused') return sent;
      const still = (await this.agents.pendingInputs(this.runId, { subAgents: false })).approvals.some((a) => a.toolCallId === approval.toolCallId);
      if (!still) return 'sent';
    }
  }

  private async settleItem({ awaitId, item }: OpenItem): Promise<Sent> {
    this.prompter.say(`await ${awaitId}, item ${item.id} (${item.kind}):`);
    for (;;) {
      const answer: AwaitAnswer = await askAnswer(this.prompter, item);
      const sent = await this.send(`answered ${item.id}`, () => this.agents.answer(this.runId, answer));
      if (sent !== 'refused') return sent;
      const open = openItems(await this.agents.pendingInputs(this.runId, { subAgents: false })).find((i) => i.awaitId === awaitId && i.item.id === item.id);
      if (!open || open.answered) return 'sent';
    }
  }

  private async send(sentLine: string, operation: () => Promise<PendingInputs>): Promise<Sent> {
    try {
      await operation();
      this.prompter.say(sentLine);
      return 'sent';
    } catch (err) {
      if (!(err instanceof AgentClientError) || (err.type !== 'rejected' && err.type !== 'run_ended')) throw err;
      this.prompter.say(err.type === 'rejected' ? `the run refused: ${err.message}` : err.message);
      return err.type === 'rejected' ? 'refused' : 'ended';
    }
  }
}
