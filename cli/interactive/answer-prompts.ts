import type { AwaitAnswer, AwaitItem, JsonValue } from '../../contracts';
import type { Prompter } from './prompter';

type Question = Extract<AwaitItem, { kind: 'questions' }>['questions'][number];

/**
 * The option ids a typed selection names: numbers (1-based) or option ids, separated by
 * commas or spaces. Answers an error message for a selection it cannot use.
 */
export function parseSelection(text: string, question: Question): string[] | string {
  const tokens = text.split(/[\s,]+/).filter((t) => t.length > 0);
  if (tokens.length === 0) return 'choose at least one option';
  const ids: string[] = [];
  for (const token of tokens) {
    const byId = question.options.find((o) => o.id === token);
    const index = /^\d+$/.test(token) ? Number(token) - 1 : -1;
    const option = byId ?? question.options[index];
    if (!option) return `no option ${token}; type a number from 1 to ${question.options.length} or an option id`;
    if (!ids.includes(option.id)) ids.push(option.id);
  }
  if (!question.allowMultiple && ids.length > 1) return 'choose one option';
  return ids;
}

async function askQuestions(p: Prompter, item: Extract<AwaitItem, { kind: 'questions' }>): Promise<AwaitAnswer> {
  if (item.title) p.say(item.title);
  const answers = new Map<string, string[]>();
  for (const question of item.questions) {
    p.say(question.prompt);
    question.options.forEach((o, i) => p.say(`  ${i + 1}) ${o.label}${o.label !== o.id ? ` [${o.id}]` : ''}`));
    const hint = question.allowMultiple ? 'numbers or ids, several separated by commas' : 'a number or id';
    for (;;) {
      const chosen = parseSelection(await p.ask(`choose (${hint}) > `), question);
      if (typeof chosen !== 'string') {
        answers.set(question.id, chosen);
        break;
      }
      p.say(chosen);
    }
  }
  return { kind: 'questions', itemId: item.id, answers: Object.fromEntries(answers) };
}

/** A typed field value: JSON when it parses, otherwise the text itself. */
export function fieldValue(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

async function askNonEmpty(p: Prompter, prompt: string): Promise<string> {
  for (;;) {
    const text = await p.ask(prompt);
    if (text) return text;
    p.say('the answer must not be empty');
  }
}

async function askClarification(p: Prompter, item: Extract<AwaitItem, { kind: 'clarification' }>): Promise<AwaitAnswer> {
  p.say(item.question);
  const answer = await askNonEmpty(p, 'answer > ');
  const fields = new Map<string, JsonValue>();
  for (const field of item.missingFields ?? []) fields.set(field, fieldValue(await askNonEmpty(p, `${field} > `)));
  return { kind: 'clarification', itemId: item.id, answer, ...(fields.size ? { fields: Object.fromEntries(fields) } : {}) };
}

/** One external call's outcome: `!message` is an error, anything else must be JSON. */
async function askCallResult(p: Prompter, toolCallId: string): Promise<{ toolCallId: string; result?: JsonValue; error?: string }> {
  for (;;) {
    const text = await askNonEmpty(p, `result of ${toolCallId} (JSON, or !MESSAGE for an error) > `);
    if (text.startsWith('!')) return { toolCallId, error: text.slice(1).trim() || 'failed' };
    try {
      return { toolCallId, result: JSON.parse(text) as JsonValue };
    } catch (err) {
      p.say(`invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

async function askExternal(p: Prompter, item: Extract<AwaitItem, { kind: 'external_tools' }>): Promise<AwaitAnswer> {
  const results = [];
  for (const call of item.calls) {
    p.say(`${call.name}(${call.toolCallId}) ${JSON.stringify(call.args)}`);
    results.push(await askCallResult(p, call.toolCallId));
  }
  return { kind: 'external_tools', itemId: item.id, results };
}

/**
 * Asks for the answer to an await item: numbered options per question, the question (and
 * each missing field) of a clarification, a JSON result (or `!message`) per external call.
 */
export function askAnswer(p: Prompter, item: AwaitItem): Promise<AwaitAnswer> {
  switch (item.kind) {
    case 'questions':
      return askQuestions(p, item);
    case 'clarification':
      return askClarification(p, item);
    case 'external_tools':
      return askExternal(p, item);
  }
}
