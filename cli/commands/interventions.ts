import { interventionPointSchema, interventionSchema, jsonValueSchema, type Intervention } from '../../contracts';
import { validate, type OptionSpecs, type ParsedArgs } from '../args';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';
import { renderReceipt } from '../render';
import { updateOrQueue } from '../queued';

/** Intervention fields by the flag that sets them, so errors name the flag. */
const fieldFlags = {
  role: '--role',
  content: '--content',
  toolCallId: '--call',
  args: '--args',
  reason: '--reason',
  name: '--tool',
  tool: '--tool',
  point: '--point',
};

/**
 * A command that sends one intervention through the validated `interveneRun` update and
 * prints its receipt (applied at once, or queued for its safe point).
 */
function interventionCommand(spec: {
  name: string;
  summary: string;
  details?: string;
  options: OptionSpecs;
  examples: readonly string[];
  build: (args: ParsedArgs) => Intervention;
}): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    ...(spec.details ? { details: spec.details } : {}),
    positionals: ['RUN'],
    options: spec.options,
    examples: spec.examples,
    prepare(args) {
      const runId = args.positional(0);
      const intervention = spec.build(args);
      validate(interventionSchema, intervention, fieldFlags);
      return async (ctx) => {
        await updateOrQueue(ctx, runId, 'intervention', () => ctx.agents.intervene(runId, intervention), { name: 'intervene', payload: intervention }, (receipt) =>
          ctx.out.emit(receipt, () => renderReceipt(runId, receipt)),
        );
      };
    },
  };
}

function optionalReason(args: ParsedArgs): { reason: string } | Record<string, never> {
  const reason = args.string('reason');
  return reason !== undefined ? { reason } : {};
}

const reasonOption = { reason: { type: 'string', value: 'TEXT', description: 'why (the planner sees it)' } } as const satisfies OptionSpecs;

/** `inject RUN --content TEXT`: appends a message before the next planner turn. */
export const injectCommand = interventionCommand({
  name: 'inject',
  summary: 'append a message to the conversation before the next planner turn',
  options: {
    content: { type: 'string', value: 'TEXT', description: 'the message (required)' },
    role: { type: 'string', value: 'user|system', description: 'role of the message (default user)' },
  },
  examples: ['inject run-watchlist-k3j9x2ab --content "Also add AMD"'],
  build: (args) => {
    const role = args.string('role') ?? 'user';
    if (role !== 'user' && role !== 'system') throw new UsageError(`--role must be user or system, got '${role}'`);
    return { kind: 'inject_message', role, content: args.requiredString('content') };
  },
});

/** `system-prompt RUN --content TEXT`: replaces the system instructions. */
export const systemPromptCommand = interventionCommand({
  name: 'system-prompt',
  summary: "replace the agent's system instructions from the next planner turn on",
  options: { content: { type: 'string', value: 'TEXT', description: 'the new instructions (required)' } },
  examples: ['system-prompt run-watchlist-k3j9x2ab --content "Answer in French."'],
  build: (args) => ({ kind: 'override_system_prompt', content: args.requiredString('content') }),
});

/** `edit-call RUN --call ID --args JSON`: replaces the arguments of a pending call. */
export const editCallCommand = interventionCommand({
  name: 'edit-call',
  summary: 'intervention: change the arguments of a planned call not yet dispatched (see edit)',
  details:
    'An operator intervention on any planned call, queued for its safe point; the call needs no confirmation.\n' +
    'To decide a call that waits for confirmation (see pending), use edit: it answers the approval request.',
  options: {
    call: { type: 'string', value: 'ID', description: 'tool call id (required)' },
    args: { type: 'string', value: 'JSON', description: 'the new arguments (required)' },
  },
  examples: [`edit-call run-watchlist-k3j9x2ab --call call_0_0 --args '{"symbol":"AMD"}'`],
  build: (args) => {
    const toolCallId = args.requiredString('call');
    const callArgs = args.json('args', jsonValueSchema);
    if (callArgs === undefined) throw new UsageError('missing --args');
    return { kind: 'edit_call', toolCallId, args: callArgs };
  },
});

/** `drop-call RUN --call ID`: closes a pending call without running it. */
export const dropCallCommand = interventionCommand({
  name: 'drop-call',
  summary: 'close a call that is not yet dispatched without running it',
  options: { call: { type: 'string', value: 'ID', description: 'tool call id (required)' }, ...reasonOption },
  examples: ['drop-call run-watchlist-k3j9x2ab --call call_0_1 --reason duplicate'],
  build: (args) => ({ kind: 'drop_call', toolCallId: args.requiredString('call'), ...optionalReason(args) }),
});

/** `block RUN --tool NAME`: refuses every later call of a tool. */
export const blockCommand = interventionCommand({
  name: 'block',
  summary: 'refuse every later call of a tool until unblocked',
  options: { tool: { type: 'string', value: 'NAME', description: 'tool name (required)' }, ...reasonOption },
  examples: ['block run-watchlist-k3j9x2ab --tool remove_from_watchlist --reason "read-only today"'],
  build: (args) => ({ kind: 'block_tool', name: args.requiredString('tool'), ...optionalReason(args) }),
});

/** `unblock RUN --tool NAME`. */
export const unblockCommand = interventionCommand({
  name: 'unblock',
  summary: 'allow a blocked tool again',
  options: { tool: { type: 'string', value: 'NAME', description: 'tool name (required)' } },
  examples: ['unblock run-watchlist-k3j9x2ab --tool remove_from_watchlist'],
  build: (args) => ({ kind: 'unblock_tool', name: args.requiredString('tool') }),
});

/** `refresh-tools RUN [--toolset NAME]`: fetches MCP tool lists again before the next planner turn. */
export const refreshToolsCommand = interventionCommand({
  name: 'refresh-tools',
  summary: "fetch the tool list of the agent's MCP toolsets (or one) again before the next planner turn",
  options: { toolset: { type: 'string', value: 'NAME', description: 'only this toolset (default: all)' } },
  examples: ['refresh-tools run-assistant-k3j9x2ab --toolset files'],
  build: (args) => {
    const toolset = args.string('toolset');
    return { kind: 'refresh_tools', ...(toolset !== undefined ? { toolset } : {}) };
  },
});

/** `breakpoint RUN --point POINT`: sets (or with `--clear` clears) a breakpoint. */
export const breakpointCommand = interventionCommand({
  name: 'breakpoint',
  summary: 'pause the run when it reaches a point (optionally for one tool only)',
  options: {
    point: { type: 'string', value: 'POINT', description: `where: ${interventionPointSchema.unwrap().options.join(', ')} (required)` },
    tool: { type: 'string', value: 'NAME', description: 'only for calls of this tool' },
    once: { type: 'boolean', description: 'clear the breakpoint once it has fired' },
    clear: { type: 'boolean', description: 'clear the breakpoint instead of setting it' },
  },
  examples: ['breakpoint run-watchlist-k3j9x2ab --point before_tool --tool add_to_watchlist --once'],
  build: (args) => {
    const pointText = args.requiredString('point');
    const point = interventionPointSchema.safeParse(pointText);
    if (!point.success) throw new UsageError(`--point: '${pointText}' is not a point; use one of ${interventionPointSchema.unwrap().options.join(', ')}`);
    const tool = args.string('tool');
    const toolPart = tool !== undefined ? { tool } : {};
    if (args.flag('clear')) {
      if (args.flag('once')) throw new UsageError('--once applies to setting a breakpoint, not to --clear');
      return { kind: 'clear_breakpoint', point: point.data, ...toolPart };
    }
    return { kind: 'set_breakpoint', point: point.data, ...toolPart, once: args.flag('once') };
  },
});
