import { jsonValueSchema, type CallDecision, type JsonValue } from '../../contracts';
import type { PendingApproval } from '../hitl/render';
import type { Prompter } from './prompter';

/** The approval choices, by the letter typed (case matters: `a` once, `A` always). */
const choices = new Map<string, 'approve' | 'always' | 'reject' | 'edit'>([
  ['a', 'approve'],
  ['approve', 'approve'],
  ['A', 'always'],
  ['always', 'always'],
  ['r', 'reject'],
  ['reject', 'reject'],
  ['e', 'edit'],
  ['edit', 'edit'],
]);

/**
 * Reads JSON from the prompter until it parses (and, when given, `check` accepts it).
 *
 * @param check answers an error message for a value it refuses.
 */
export async function askJson(p: Prompter, prompt: string, check?: (value: JsonValue) => string | undefined): Promise<JsonValue> {
  for (;;) {
    const text = await p.ask(prompt);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      p.say(`invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const parsed = jsonValueSchema.safeParse(raw);
    const problem = parsed.success ? check?.(parsed.data) : 'not a JSON value';
    if (parsed.success && problem === undefined) return parsed.data;
    p.say(problem ?? 'invalid value');
  }
}

/**
 * Asks what to do with a call waiting for confirmation: `[a]pprove / [A]lways / [r]eject /
 * [e]dit`. Reject asks for a reason (empty: the default); edit asks for JSON arguments.
 *
 * @param by recorded as who decided.
 */
export async function askDecision(p: Prompter, approval: PendingApproval, by?: string): Promise<CallDecision> {
  p.say(`${approval.name}(${approval.toolCallId}) ${JSON.stringify(approval.args)} waits for confirmation`);
  const who = by !== undefined ? { by } : {};
  for (;;) {
    const choice = choices.get(await p.ask('[a]pprove / [A]lways / [r]eject / [e]dit > '));
    switch (choice) {
      case 'approve':
      case 'always':
        return { decision: 'approve', toolCallId: approval.toolCallId, always: choice === 'always', ...who };
      case 'reject': {
        const reason = await p.ask('reason (empty for none) > ');
        return { decision: 'reject', toolCallId: approval.toolCallId, ...(reason ? { reason } : {}), ...who };
      }
      case 'edit': {
        const args = await askJson(p, `arguments for ${approval.name} (JSON) > `);
        return { decision: 'edit', toolCallId: approval.toolCallId, args, ...who };
      }
      case undefined:
        p.say('type a (approve), A (approve always), r (reject) or e (edit)');
    }
  }
}
