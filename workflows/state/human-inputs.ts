import { describeIssues, type JsonValue } from '../../contracts/json';
import { echoed, echoedList } from '../../contracts/safe-text';
import type { Await, AwaitItem } from '../../contracts/plan';
import type { Message } from '../../contracts/messages';
import type { ParsedAwaitAnswer, ParsedCallDecision, PendingInputs } from '../../contracts/hitl';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { ToolOutput, ToolRequest } from '../../contracts/tools';
import { approvalDigest } from '../../contracts/approval-digest';
import { workflowNowIso } from '../kernel/clock';
import { DecidedCalls } from './decision-refusals';

/** A call waiting for a human decision. */
interface PendingApproval {
  readonly request: ToolRequest;
  readonly requestedAt: string;
  /** What the approval is bound to: the call's name and arguments ({@link approvalDigest}). */
  readonly digest: string;
  decision?: ParsedCallDecision;
}

/** The open await barrier. */
interface OpenAwait {
  readonly awaitId: string;
  readonly spec: Await;
  readonly turn: number;
  readonly answers: Map<string, ParsedAwaitAnswer>;
  readonly deadline?: string;
}

/** Who asked a bound item: the tool call an answer closes. */
export interface BoundCall {
  readonly toolCallId: string;
  readonly name: string;
  readonly args: JsonValue;
}

const noAnswer = 'no answer: the wait for a human timed out';

/** The tool calls an await item stands for, if it is bound to any. */
export function boundCalls(item: AwaitItem): BoundCall[] {
  switch (item.kind) {
    case 'clarification':
      return item.toolCallId
        ? [{ toolCallId: item.toolCallId, name: item.toolName ?? 'ask_clarification', args: { question: item.question } }]
        : [];
    case 'questions':
      return item.toolCallId
        ? [{ toolCallId: item.toolCallId, name: item.toolName ?? 'ask_multiple_choice', args: { questions: item.questions.map((q) => q.prompt) } }]
        : [];
    case 'external_tools':
      return item.calls.map((c) => ({ toolCallId: c.toolCallId, name: c.name, args: c.args }));
  }
}

/**
 * What a run waits on from humans: calls waiting for confirmation and the open await
 * barrier. Validation lives here so update validators and signal handlers share it.
 */
export class HumanInputs {
  readonly approvals = new Map<string, PendingApproval>();
  readonly alwaysApproved = new Set<string>();
  /** Calls decided in this execution, to answer a second decision `already_decided`. */
  private readonly decided = new DecidedCalls();
  open: OpenAwait | undefined;

  get isWaiting(): boolean {
    return this.open !== undefined || [...this.approvals.values()].some((a) => !a.decision);
  }

  /** Asks for a decision on `request`; answers the digest the approval is bound to. */
  requestApproval(request: ToolRequest): string {
    const digest = approvalDigest(request.name, request.args);
    this.approvals.set(request.toolCallId, { request, requestedAt: workflowNowIso(), digest });
    // Asked again under an id decided before (a rewound or re-planned run): a new request.
    this.decided.forget(request.toolCallId);
    return digest;
  }

  /** A call that waited for its decision when the run continued as new: it waits again, as asked then. */
  restoreApproval(request: ToolRequest, requestedAt: string): void {
    this.approvals.set(request.toolCallId, { request, requestedAt, digest: approvalDigest(request.name, request.args) });
  }

  /** The decision for a call, once made; the entry is removed. */
  takeDecision(toolCallId: string): ParsedCallDecision | undefined {
    const decision = this.approvals.get(toolCallId)?.decision;
    if (decision) this.approvals.delete(toolCallId);
    return decision;
  }

  /**
   * Checks a decision against the waiting calls and the agent's tools.
   *
   * @throws Error naming what is wrong.
   */
  validateDecision(decision: ParsedCallDecision, tools: readonly ToolDefinition[]): void {
    const pending = this.approvals.get(decision.toolCallId);
    const refused = this.decided.refusal(decision, pending?.digest);
    if (refused) throw refused;
    if (!pending) {
      const waiting = this.waitingRequests().map((r) => r.toolCallId);
      throw new Error(`no call ${echoed(decision.toolCallId)} waits for a decision; waiting: ${echoedList(waiting) || 'none'}`);
    }
    if (decision.decision === 'edit' || decision.decision === 'replace') {
      const name = decision.decision === 'replace' ? decision.name : pending.request.name;
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`unknown tool "${echoed(name)}"; available tools: ${tools.map((t) => t.name).join(', ')}`);
      const check = tool.input.safeParse(decision.args);
      if (!check.success) throw new Error(`arguments do not match ${echoed(name)}: ${describeIssues(check.error)}`);
    }
  }

  decide(decision: ParsedCallDecision): void {
    const pending = this.approvals.get(decision.toolCallId);
    if (!pending) return;
    pending.decision = decision;
    if (decision.decision === 'approve' && decision.always) this.alwaysApproved.add(pending.request.name);
    this.decided.remember(decision, workflowNowIso());
  }

  /** The calls that wait for a decision, oldest first. */
  waitingRequests(): ToolRequest[] {
    return [...this.approvals.values()].filter((a) => !a.decision).map((a) => a.request);
  }

  openAwait(awaitId: string, spec: Await, turn: number, deadline?: string): void {
    this.open = { awaitId, spec, turn, answers: new Map(), ...(deadline ? { deadline } : {}) };
  }

  /** The await the run continued as new in, with the answers given so far. */
  restoreAwait(carried: { awaitId: string; spec: Await; answers: readonly ParsedAwaitAnswer[]; deadline?: string }, turn: number): void {
    this.openAwait(carried.awaitId, carried.spec, turn, carried.deadline);
    for (const answer of carried.answers) this.open?.answers.set(answer.itemId, answer);
  }

  get allAnswered(): boolean {
    return this.open !== undefined && this.open.spec.items.every((i) => this.open?.answers.has(i.id));
  }

  /**
   * Checks an answer against the open await: the item exists and is open, option ids exist,
   * single-choice questions get one option, missing fields are supplied, external results
   * cover the item's calls and match the tool's output schema when it has one.
   *
   * @throws Error naming what is wrong.
   */
  validateAnswer(answer: ParsedAwaitAnswer, tools: readonly ToolDefinition[]): void {
    const open = this.open;
    if (!open) throw new Error('the run is not waiting for answers');
    const item = open.spec.items.find((i) => i.id === answer.itemId);
    if (!item) throw new Error(`no await item "${echoed(answer.itemId)}"; items: ${echoedList(open.spec.items.map((i) => i.id))}`);
    if (open.answers.has(item.id)) throw new Error(`item "${echoed(item.id)}" is already answered`);
    if (item.kind !== answer.kind) throw new Error(`item "${echoed(item.id)}" is a ${item.kind} item, not ${answer.kind}`);
    if (item.kind === 'clarification' && answer.kind === 'clarification') {
      const missing = (item.missingFields ?? []).filter((f) => answer.fields?.[f] === undefined);
      if (missing.length) throw new Error(`required fields missing from the answer: ${echoedList(missing)}`);
    }
    if (item.kind === 'questions' && answer.kind === 'questions') {
      for (const question of item.questions) {
        const chosen = answer.answers[question.id];
        if (!chosen) throw new Error(`question "${echoed(question.id)}" is not answered`);
        const unknown = chosen.filter((id) => !question.options.some((o) => o.id === id));
        if (unknown.length) {
          throw new Error(`question "${echoed(question.id)}": unknown option ${echoedList(unknown)}; options: ${echoedList(question.options.map((o) => o.id))}`);
        }
        if (!question.allowMultiple && chosen.length > 1) throw new Error(`question "${echoed(question.id)}" allows one option, got ${chosen.length}`);
      }
      const extra = Object.keys(answer.answers).filter((id) => !item.questions.some((q) => q.id === id));
      if (extra.length) throw new Error(`no question ${echoedList(extra)} in item "${echoed(item.id)}"`);
    }
    if (item.kind === 'external_tools' && answer.kind === 'external_tools') {
      for (const call of item.calls) {
        const result = answer.results.find((r) => r.toolCallId === call.toolCallId);
        if (!result) throw new Error(`no result for call ${echoed(call.toolCallId)}`);
        if (result.error === undefined && result.result === undefined) throw new Error(`call ${echoed(call.toolCallId)}: give a result or an error`);
        const output = tools.find((t) => t.name === call.name)?.output;
        const check = result.error === undefined ? output?.safeParse(result.result) : undefined;
        if (check && !check.success) throw new Error(`result of ${echoed(call.toolCallId)} does not match ${call.name}: ${describeIssues(check.error)}`);
      }
    }
  }

  answer(answer: ParsedAwaitAnswer): void {
    this.open?.answers.set(answer.itemId, answer);
  }

  /** Fills unanswered items with their defaults (or "no answer") after a timeout. */
  answerByDefault(): void {
    const open = this.open;
    if (!open) return;
    for (const item of open.spec.items) {
      if (open.answers.has(item.id)) continue;
      if (item.kind === 'clarification') open.answers.set(item.id, { kind: 'clarification', itemId: item.id, answer: item.defaultAnswer ?? noAnswer });
      if (item.kind === 'questions') {
        const answers = Object.fromEntries(item.questions.map((q) => [q.id, q.defaultOptionIds ?? []]));
        open.answers.set(item.id, { kind: 'questions', itemId: item.id, answers });
      }
      if (item.kind === 'external_tools') {
        open.answers.set(item.id, { kind: 'external_tools', itemId: item.id, results: item.calls.map((c) => ({ toolCallId: c.toolCallId, error: noAnswer })) });
      }
    }
  }

  /** Snapshot for the pendingInputs query and the status report. */
  pending(): PendingInputs {
    const open = this.open;
    return {
      approvals: [...this.approvals.values()]
        .filter((a) => !a.decision)
        .map((a) => ({ toolCallId: a.request.toolCallId, name: a.request.name, args: a.request.args, digest: a.digest, turn: a.request.turn, requestedAt: a.requestedAt })),
      ...(open
        ? {
            await: {
              awaitId: open.awaitId,
              items: open.spec.items.map((item) => ({ id: item.id, kind: item.kind, answered: open.answers.has(item.id), item: item as JsonValue })),
              ...(open.deadline ? { deadline: open.deadline } : {}),
            },
          }
        : {}),
    };
  }
}

/**
 * Turns the answers of a closed await into what the planner sees: outputs that close the
 * bound tool calls, and user messages for answers not bound to a call.
 */
export function answersToTranscript(spec: Await, answers: ReadonlyMap<string, ParsedAwaitAnswer>, turn: number): { outputs: ToolOutput[]; messages: Message[] } {
  const outputs: ToolOutput[] = [];
  const messages: Message[] = [];
  const ok = (call: BoundCall, result: JsonValue): ToolOutput => ({
    toolCallId: call.toolCallId,
    name: call.name,
    args: call.args,
    turn,
    status: 'ok',
    result,
    resultBytes: JSON.stringify(result).length,
    telemetry: { durationMs: 0 },
  });
  for (const item of spec.items) {
    const answer = answers.get(item.id);
    if (!answer) continue;
    const [bound] = boundCalls(item);
    if (item.kind === 'clarification' && answer.kind === 'clarification') {
      const result: JsonValue = { answer: answer.answer, ...(answer.fields ? { fields: answer.fields } : {}) };
      if (bound) outputs.push(ok(bound, result));
      else messages.push({ role: 'user', content: `Answer to "${item.question}": ${answer.answer}${answer.fields ? ` ${JSON.stringify(answer.fields)}` : ''}` });
    }
    if (item.kind === 'questions' && answer.kind === 'questions') {
      const chosen = Object.fromEntries(
        item.questions.map((q) => [q.id, (answer.answers[q.id] ?? []).map((id) => ({ id, label: q.options.find((o) => o.id === id)?.label ?? id }))]),
      );
      if (bound) outputs.push(ok(bound, { answers: chosen }));
      else {
        const lines = item.questions.map((q) => `${q.prompt}: ${(chosen[q.id] ?? []).map((o) => o.label).join(', ') || '(no answer)'}`);
        messages.push({ role: 'user', content: lines.join('\n') });
      }
    }
    if (item.kind === 'external_tools' && answer.kind === 'external_tools') {
      for (const call of boundCalls(item)) {
        const r = answer.results.find((x) => x.toolCallId === call.toolCallId);
        if (r && r.error === undefined) outputs.push(ok(call, r.result ?? null));
        else {
          outputs.push({
            toolCallId: call.toolCallId,
            name: call.name,
            args: call.args,
            turn,
            status: 'error',
            resultBytes: 0,
            error: { type: 'tool_failed', message: r?.error ?? noAnswer },
            telemetry: { durationMs: 0 },
          });
        }
      }
    }
  }
  return { outputs, messages };
}
