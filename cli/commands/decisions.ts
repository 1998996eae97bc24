import { callDecisionSchema, jsonValueSchema, type CallDecision, type JsonValue, type PendingInputs } from '../../contracts';
import { validate, type OptionSpecs, type ParsedArgs } from '../args';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';
import { renderRemaining } from '../hitl/render';
import { updateOrQueue } from '../queued';
import { resolveTreePath } from '../../client/run-tree';

/** Decision fields by the flag that sets them, so errors name the flag. */
const decisionFlags = { toolCallId: '--call', args: '--args', name: '--tool', reason: '--reason', by: '--by', digest: '--digest' };

const common = {
  call: { type: 'string', value: 'ID', description: 'id of the call waiting for confirmation (required; see pending)' },
  by: { type: 'string', value: 'NAME', description: 'who decided (recorded in the event log)' },
  digest: { type: 'string', value: 'sha256:HEX', description: "the approval's digest as pending showed it: the run refuses the decision if the call's arguments changed since" },
  path: { type: 'string', value: 'CALL[/CALL...]', description: 'the sub-agent run that owns the call, by call ids from RUN down (see tree)' },
} as const satisfies OptionSpecs;

const pastTense: Record<CallDecision['decision'], string> = { approve: 'approved', reject: 'rejected', edit: 'edited', replace: 'replaced' };

/**
 * A command that decides a call waiting for confirmation through the validated `decideCall`
 * update; prints what still waits (`--json`: the run's pending inputs).
 */
function decisionCommand(spec: {
  name: string;
  summary: string;
  details?: string;
  options: OptionSpecs;
  examples: readonly string[];
  build: (args: ParsedArgs, toolCallId: string) => CallDecision;
}): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    ...(spec.details ? { details: spec.details } : {}),
    positionals: ['RUN'],
    options: { ...common, ...spec.options },
    examples: spec.examples,
    prepare(args) {
      const runId = args.positional(0);
      const by = args.string('by');
      const digest = args.string('digest');
      const decision: CallDecision = { ...spec.build(args, args.requiredString('call')), ...(by !== undefined ? { by } : {}), ...(digest !== undefined ? { digest } : {}) };
      validate(callDecisionSchema, decision, decisionFlags);
      const path = args.string('path')?.split('/').filter((p) => p.length > 0) ?? [];
      return async (ctx) => {
        const always = decision.decision === 'approve' && decision.always ? ' (and every later call of its tool)' : '';
        const print = (pending: PendingInputs): void =>
          ctx.out.emit(pending, () => [`${pastTense[decision.decision]} ${decision.toolCallId}${always} on ${runId}`, renderRemaining(pending)]);
        // A sub-agent run is found through its parents' status, or their histories when no worker
        // answers: its decision is queued like the top run's.
        const target = path.length ? await resolveTreePath(ctx.agents, runId, path) : runId;
        await updateOrQueue(ctx, target, 'decision', () => ctx.agents.decide(target, decision), { name: 'decide', payload: decision }, print);
      };
    },
  };
}

function jsonArgs(args: ParsedArgs): JsonValue {
  const value = args.json('args', jsonValueSchema);
  if (value === undefined) throw new UsageError('missing --args');
  return value;
}

/** `approve RUN --call ID [--always]`: runs a call waiting for confirmation. */
export const approveCommand = decisionCommand({
  name: 'approve',
  summary: 'run a call waiting for confirmation (--always: approve its tool for the rest of the run)',
  options: { always: { type: 'boolean', description: 'also approve every later call of this tool in this run' } },
  examples: ['approve run-watchlist-k3j9x2ab --call call_0_0 --by alice', 'approve run-watchlist-k3j9x2ab --call call_0_0 --always'],
  build: (args, toolCallId) => ({ decision: 'approve', toolCallId, always: args.flag('always') }),
});

/** `reject RUN --call ID [--reason TEXT]`: closes the call without running it. */
export const rejectCommand = decisionCommand({
  name: 'reject',
  summary: 'refuse a call waiting for confirmation (the planner sees the reason)',
  options: { reason: { type: 'string', value: 'TEXT', description: 'why (default "rejected by a human")' } },
  examples: ['reject run-watchlist-k3j9x2ab --call call_0_0 --reason "not today"'],
  build: (args, toolCallId) => {
    const reason = args.string('reason');
    return { decision: 'reject', toolCallId, ...(reason !== undefined ? { reason } : {}) };
  },
});

/** `edit RUN --call ID --args JSON`: runs a call waiting for confirmation with other arguments. */
export const editCommand = decisionCommand({
  name: 'edit',
  summary: 'decide a call waiting for confirmation: run it with other arguments (see edit-call)',
  details:
    'Answers the approval request of a call that waits for confirmation (see pending): the call runs with\n' +
    "these arguments, which the run checks against the tool's schema; both versions are recorded.\n" +
    'To change a planned call that needs no confirmation, use the edit-call intervention.',
  options: { args: { type: 'string', value: 'JSON', description: "the new arguments (required; checked against the tool's schema by the run)" } },
  examples: [`edit run-watchlist-k3j9x2ab --call call_0_0 --args '{"symbols":["MSFT"]}'`],
  build: (args, toolCallId) => ({ decision: 'edit', toolCallId, args: jsonArgs(args) }),
});

/** `replace RUN --call ID --tool NAME --args JSON`: runs another call in its place. */
export const replaceCommand = decisionCommand({
  name: 'replace',
  summary: 'decide a call waiting for confirmation: run another tool call in its place',
  options: {
    tool: { type: 'string', value: 'NAME', description: 'the tool to run instead (required)' },
    args: { type: 'string', value: 'JSON', description: 'its arguments (required)' },
  },
  examples: [`replace run-watchlist-k3j9x2ab --call call_0_0 --tool get_quote --args '{"symbol":"AAPL"}'`],
  build: (args, toolCallId) => ({ decision: 'replace', toolCallId, name: args.requiredString('tool'), args: jsonArgs(args) }),
});
