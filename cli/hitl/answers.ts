import {
  awaitAnswerSchema,
  awaitItemSchema,
  jsonValueSchema,
  type AwaitAnswer,
  type AwaitItem,
  type JsonObject,
  type JsonValue,
  type PendingInputs,
} from '../../contracts';
import { AgentClientError } from '../../client/agent-client';
import { parseJsonValue, validate } from '../args';
import { UsageError } from '../exit-codes';

/** The answer flags of `agentctl answer`, as given (resolved against the item later). */
export interface AnswerFlags {
  readonly text?: string;
  readonly fields?: JsonObject;
  /** `--choose` values: `QUESTION=OPT[,OPT...]` (or `OPT[,OPT...]` when the item has one question). */
  readonly choose: readonly string[];
  /** `--result` values: `CALLID=JSON` (or `JSON` when the item has one call). */
  readonly results: readonly string[];
  /** `--error` values: `CALLID=MESSAGE` (or `MESSAGE` when the item has one call). */
  readonly errors: readonly string[];
}

/** The kind of await item the flags answer. */
export type AnswerKind = AwaitItem['kind'];

const kindFlags: Record<AnswerKind, string> = {
  clarification: '--text [--fields]',
  questions: '--choose',
  external_tools: '--result / --error',
};

/**
 * Which kind of item the flags answer: `--text` a clarification, `--choose` questions,
 * `--result` / `--error` external tools.
 *
 * @throws UsageError when none or several kinds are given.
 */
export function answerKindOf(flags: AnswerFlags): AnswerKind {
  const kinds: AnswerKind[] = [];
  if (flags.text !== undefined || flags.fields !== undefined) kinds.push('clarification');
  if (flags.choose.length > 0) kinds.push('questions');
  if (flags.results.length > 0 || flags.errors.length > 0) kinds.push('external_tools');
  const [kind, other] = kinds;
  if (kind === undefined) throw new UsageError('give the answer: --text (clarification), --choose (questions) or --result / --error (external tools)');
  if (other !== undefined) throw new UsageError(`give one kind of answer, not ${kinds.map((k) => kindFlags[k]).join(' and ')}`);
  if (kind === 'clarification' && flags.text === undefined) throw new UsageError('missing --text (--fields goes with it)');
  return kind;
}

/** Splits `KEY=VALUE` at the first `=` when KEY is one of `keys`; otherwise answers undefined. */
function keyed(value: string, keys: readonly string[]): [string, string] | undefined {
  const eq = value.indexOf('=');
  if (eq <= 0) return undefined;
  const key = value.slice(0, eq).trim();
  return keys.includes(key) ? [key, value.slice(eq + 1)] : undefined;
}

/**
 * Splits `KEY=VALUE` for a key of `keys`, or takes the whole value for the only key.
 *
 * @param form how the value looks, for errors, e.g. `QUESTION=OPT[,OPT...]`.
 */
function keyedOrOnly(flag: string, value: string, keys: readonly string[], what: string, form: string): [string, string] {
  const split = keyed(value, keys);
  if (split) return split;
  const [only] = keys;
  if (only !== undefined && keys.length === 1) return [only, value];
  const eq = value.indexOf('=');
  const known = `${what}s: ${keys.join(', ')}`;
  if (eq > 0) throw new UsageError(`${flag}: no ${what} '${value.slice(0, eq).trim()}'; ${known}`);
  throw new UsageError(`${flag}: expected ${form}, got '${value}' (${known})`);
}

/**
 * `--choose` values to option ids per question id. `color=red` or `sizes=s,m`; a bare
 * `red` when the item has one question.
 *
 * @param questionIds the item's question ids.
 * @throws UsageError on a malformed value, an unknown question, or a question given twice.
 */
export function parseChoose(values: readonly string[], questionIds: readonly string[]): Record<string, string[]> {
  const answers = new Map<string, string[]>();
  for (const value of values) {
    const [question, list] = keyedOrOnly('--choose', value, questionIds, 'question', 'QUESTION=OPT[,OPT...]');
    const options = list.split(',').map((o) => o.trim()).filter((o) => o.length > 0);
    if (options.length === 0) throw new UsageError(`--choose ${question}: name at least one option`);
    if (answers.has(question)) throw new UsageError(`--choose: question '${question}' given twice; list its options once, separated by commas`);
    answers.set(question, options);
  }
  return Object.fromEntries(answers);
}

/** One external call's outcome: a result or an error message. */
export interface ExternalResult {
  readonly toolCallId: string;
  readonly result?: JsonValue;
  readonly error?: string;
}

/**
 * `--result CALLID=JSON` and `--error CALLID=MESSAGE` values to results; the call id may be
 * left out when the item has one call.
 *
 * @param callIds the item's call ids.
 * @throws UsageError on invalid JSON, an unknown call, or a call given twice.
 */
export function parseExternalResults(results: readonly string[], errors: readonly string[], callIds: readonly string[]): ExternalResult[] {
  const out = new Map<string, ExternalResult>();
  const add = (entry: ExternalResult): void => {
    if (out.has(entry.toolCallId)) throw new UsageError(`call '${entry.toolCallId}' has more than one --result / --error`);
    out.set(entry.toolCallId, entry);
  };
  for (const value of results) {
    const [toolCallId, json] = keyedOrOnly('--result', value, callIds, 'call', 'CALLID=JSON');
    add({ toolCallId, result: parseJsonValue(`--result ${toolCallId}`, json, jsonValueSchema) });
  }
  for (const value of errors) {
    const [toolCallId, message] = keyedOrOnly('--error', value, callIds, 'call', 'CALLID=MESSAGE');
    if (message.trim() === '') throw new UsageError(`--error ${toolCallId}: the message must not be empty`);
    add({ toolCallId, error: message });
  }
  return [...out.values()];
}

/** An item of the open await, typed, with whether it is answered. */
export interface OpenItem {
  readonly awaitId: string;
  readonly item: AwaitItem;
  readonly answered: boolean;
}

/** The open await's items, typed (items the client cannot read are left out). */
export function openItems(pending: PendingInputs): OpenItem[] {
  const open = pending.await;
  if (!open) return [];
  return open.items.flatMap((entry) => {
    const parsed = awaitItemSchema.safeParse(entry.item);
    return parsed.success ? [{ awaitId: open.awaitId, item: parsed.data, answered: entry.answered }] : [];
  });
}

/**
 * The open await item `itemId`.
 *
 * @throws AgentClientError `rejected`, with the run's own words, when the run waits for no
 *   answers or has no such item.
 */
export function findOpenItem(pending: PendingInputs, itemId: string): OpenItem {
  if (!pending.await) throw new AgentClientError('rejected', 'the run is not waiting for answers');
  const found = openItems(pending).find((i) => i.item.id === itemId);
  if (!found) throw new AgentClientError('rejected', `no await item "${itemId}"; items: ${pending.await.items.map((i) => i.id).join(', ')}`);
  return found;
}

/**
 * The answer the flags give to `item`, validated with awaitAnswerSchema.
 *
 * @throws UsageError when the flags are for another kind of item or malformed.
 */
export function buildAnswer(item: AwaitItem, flags: AnswerFlags): AwaitAnswer {
  const kind = answerKindOf(flags);
  if (kind !== item.kind) throw new UsageError(`item "${item.id}" is a ${item.kind} item: answer it with ${kindFlags[item.kind]}`);
  let answer: AwaitAnswer;
  switch (item.kind) {
    case 'clarification':
      answer = { kind: 'clarification', itemId: item.id, answer: flags.text ?? '', ...(flags.fields !== undefined ? { fields: flags.fields } : {}) };
      break;
    case 'questions':
      answer = { kind: 'questions', itemId: item.id, answers: parseChoose(flags.choose, item.questions.map((q) => q.id)) };
      break;
    case 'external_tools':
      answer = { kind: 'external_tools', itemId: item.id, results: parseExternalResults(flags.results, flags.errors, item.calls.map((c) => c.toolCallId)) };
      break;
  }
  validate(awaitAnswerSchema, answer, { answer: '--text', fields: '--fields', answers: '--choose', results: '--result' });
  return answer;
}
