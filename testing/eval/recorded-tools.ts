import { Context } from '@temporalio/activity';
import type { JsonValue } from '../../contracts';
import { canonicalJson } from '../../contracts/canonical-json';
import type { AgentDefinition } from '../../workflows/agents/agent-registry';
import { implementTool, ToolFailure, type ToolContext, type ToolImplementation } from '../../activities/tool-implementation';
import type { RecordedOutcome, RecordedToolCall } from './recording';

export { canonicalJson };

/** The key a call is matched by: its tool and its arguments as canonical JSON. */
export function callKey(name: string, args: unknown): string {
  return `${name}\u0000${canonicalJson(args)}`;
}

/** A call of the candidate that the recording could not answer. */
export interface UnrecordedCall {
  readonly kind: 'tool' | 'approval' | 'answer';
  readonly turn?: number;
  readonly name: string;
  readonly args: JsonValue;
  readonly reason: string;
  /** Set for a call of a sub-agent run: the call path from the evaluated run to that run. */
  readonly path?: readonly string[];
}

/**
 * The recorded answers of one run's tool calls, matched by tool and arguments: the first call
 * with a key takes the first recorded answer of that key, the next one the next, and a call
 * repeated more often than recorded gets the last answer again.
 */
export class RecordedAnswers {
  private readonly byKey = new Map<string, RecordedOutcome[]>();
  private readonly used = new Map<string, number>();
  readonly unrecorded: UnrecordedCall[] = [];
  /** Calls answered from the recording, and calls run for real (allow-listed). */
  answered = 0;
  ranForReal = 0;

  /**
   * @param normalize the arguments as the tool receives them (its input schema's defaults
   *   applied), so a recorded call and the candidate's match whether or not they spelled out a default.
   * @param where for a sub-agent run: its call path, and why it has no recording when it has none.
   */
  constructor(
    calls: readonly RecordedToolCall[],
    private readonly normalize: (name: string, args: unknown) => unknown = (_name, args) => args,
    readonly where: { readonly path?: readonly string[]; readonly noRecording?: string } = {},
  ) {
    for (const c of calls) {
      const key = callKey(c.name, normalize(c.name, c.args));
      this.byKey.set(key, [...(this.byKey.get(key) ?? []), c.outcome]);
    }
  }

  /** The recorded outcome of a call with this tool and these arguments, or undefined when the recording has none. */
  take(name: string, args: unknown): RecordedOutcome | undefined {
    const key = callKey(name, this.normalize(name, args));
    const outcomes = this.byKey.get(key);
    if (!outcomes?.length) return undefined;
    const n = this.used.get(key) ?? 0;
    this.used.set(key, n + 1);
    return outcomes[Math.min(n, outcomes.length - 1)];
  }
}

/** Where the recorded tools find the answers of the run a call belongs to. */
export interface AnswerRouter {
  /** The answers of the candidate run (or sub-agent run) with this workflow id (undefined: not a run being evaluated). */
  answersOf(workflowId: string): RecordedAnswers | undefined | Promise<RecordedAnswers | undefined>;
}

/** The workflow id of the run that made the call (a sub-agent run's id has `/` in it, as the key has). */
function workflowIdOf(ctx: ToolContext): string {
  let running: string | undefined;
  try {
    running = Context.current().info.workflowExecution?.workflowId;
  } catch {
    // Called outside an activity (a test calling the implementation): the key's first part.
  }
  return running ?? ctx.idempotencyKey.split('/')[0] ?? '';
}

/** Thrown for a call the recording cannot answer: the candidate's planner sees it as a tool error. */
export function notRecorded(name: string, reason: string): ToolFailure {
  return new ToolFailure(`not recorded: ${name} ${reason}`, { type: 'not_recorded', retryable: false });
}

function answer(outcome: RecordedOutcome, name: string, ctx: ToolContext): JsonValue {
  if (outcome.kind === 'error') throw new ToolFailure(outcome.message, { type: outcome.type ?? 'tool_failure', retryable: false });
  if (outcome.kind === 'missing') throw notRecorded(name, `(${outcome.reason})`);
  for (const [key, value] of Object.entries(outcome.sessionStateChanges ?? {})) ctx.session.set(key, value);
  return outcome.result;
}

/**
 * One implementation per tool of `agents` that answers from the recording of the call's run
 * instead of running the tool: the recorded result (and its session state changes), or the
 * recorded error. A call the recording cannot answer runs for real when `live` has an
 * implementation of that tool (read-only tools you allow), else fails as "not recorded" and is
 * kept in the run's `unrecorded` list.
 */
export function recordedToolImplementations(agents: readonly AgentDefinition[], router: AnswerRouter, live: readonly ToolImplementation[] = []): ToolImplementation[] {
  const definitions = [...new Set(agents.flatMap((a) => a.tools.filter((t) => !t.subAgent)))];
  return definitions.map((definition) =>
    implementTool(definition, async (args, ctx) => {
      const answers = await router.answersOf(workflowIdOf(ctx));
      if (!answers) throw notRecorded(definition.name, '(the call belongs to no run being evaluated)');
      const outcome = answers.take(definition.name, args);
      if (outcome) {
        answers.answered++;
        return answer(outcome, definition.name, ctx);
      }
      const real = live.find((t) => t.definition.name === definition.name);
      if (real) {
        answers.ranForReal++;
        return real.execute(args, ctx);
      }
      const { path, noRecording } = answers.where;
      const reason = noRecording ?? 'no recorded call of this tool with these arguments';
      answers.unrecorded.push({ kind: 'tool', turn: ctx.turn, name: definition.name, args: args as JsonValue, reason, ...(path?.length ? { path } : {}) });
      throw notRecorded(definition.name, noRecording ? `(${noRecording})` : 'with these arguments (the recording has no such call)');
    }),
  );
}
