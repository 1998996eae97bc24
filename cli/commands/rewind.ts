import type { Checkpoint, CorrectionDelivery } from '../../history/checkpoints';
import { interventionSchema, type Intervention } from '../../contracts';
import { parseJsonValue, validate, type OptionSpecs, type ParsedArgs } from '../args';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';
import { forkWithWorkerSdk } from '../replay';
import { workflowsModule } from '../workflow-code';

const runIdOption = {
  'run-id': { type: 'string', value: 'ID', description: 'execution (run id) to read (default: the latest)' },
} as const satisfies OptionSpecs;

function optionalRunId(args: ParsedArgs): string | undefined {
  return args.string('run-id');
}

function list(items: readonly string[]): string {
  if (items.length === 0) return '-';
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n > 1 ? `${name} x${n}` : name)).join(', ');
}

/** Checkpoints as an aligned table: one row per turn boundary, with what the next turn did. */
export function renderCheckpoints(workflowId: string, checkpoints: readonly Checkpoint[]): string[] {
  if (checkpoints.length === 0) return [`no turn boundaries in this execution of ${workflowId}`];
  const header = ['turn', 'event', 'time', 'model calls', 'tool calls', 'signals', 'updates'];
  const rows = checkpoints.map((c) => [
    String(c.turn),
    String(c.eventId),
    c.time,
    String(c.summary.modelCalls),
    list(c.summary.toolCalls),
    list(c.summary.signals),
    list(c.summary.updates),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = new Set([0, 1, 3]);
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [format(header), ...rows.map(format)];
}

/** `checkpoints RUN`: the turn boundaries a rewind can go back to. */
export const checkpointsCommand: Command = {
  name: 'checkpoints',
  summary: "list a run's turn boundaries (where rewind --to-turn goes back to)",
  details:
    'Each row is the boundary after TURN completed turns: the workflow task (EVENT id, TIME) a rewind\n' +
    'resets to. The other columns count what happened after it, in turn TURN+1: model calls, tool\n' +
    'calls, and the signals and updates (approvals, interventions, pauses) the run received.',
  positionals: ['RUN'],
  options: runIdOption,
  examples: ['checkpoints run-watchlist-k3j9x2ab', 'checkpoints run-watchlist-k3j9x2ab --json'],
  prepare(args) {
    const workflowId = args.positional(0);
    const runId = optionalRunId(args);
    return async (ctx) => {
      const checkpoints = await ctx.agents.checkpoints(workflowId, runId);
      ctx.out.emit(checkpoints, () => renderCheckpoints(workflowId, checkpoints));
    };
  },
};

/**
 * The corrections of a rewind: each `--with` (an intervention as JSON, validated here) then each
 * `--inject TEXT` (a user message).
 *
 * @throws UsageError naming the flag and field (`--with: toolCallId: …`).
 */
export function rewindCorrections(args: ParsedArgs): Intervention[] {
  const withs = args.strings('with');
  const corrections: Intervention[] = withs.map((text, i) => parseJsonValue(withs.length > 1 ? `--with #${i + 1}` : '--with', text, interventionSchema));
  for (const content of args.strings('inject')) {
    corrections.push(validate(interventionSchema, { kind: 'inject_message', role: 'user', content }, { content: '--inject' }));
  }
  return corrections;
}

/** What a rewind answered, for people. */
export function renderRewind(
  workflowId: string,
  r: { runId: string; checkpoint: Checkpoint; corrections: CorrectionDelivery },
  sent: number,
  reapply: boolean,
): string[] {
  const lines = [
    `rewound ${workflowId} to the boundary after turn ${r.checkpoint.turn} (event ${r.checkpoint.eventId}, ${r.checkpoint.time})`,
    `new run id: ${r.runId}`,
    `later signals and updates: ${reapply ? 're-applied to the new run' : 'dropped (a clean rewind)'}`,
  ];
  const n = `${sent} correction${sent === 1 ? '' : 's'}`;
  if (r.corrections === 'atomic') lines.push(`corrections: ${n} applied at the rewind point, before the next planner turn`);
  else lines.push('corrections: none');
  return lines;
}

/** `rewind RUN --to-turn N`: a Temporal reset to a turn boundary, optionally with corrections. */
export const rewindCommand: Command = {
  name: 'rewind',
  summary: 'reset a run to a turn boundary; it continues under the same id (new run id), optionally with a fix',
  details:
    'Works on running, completed, failed and terminated runs (see checkpoints for the turns there are).\n' +
    'The run goes back to the boundary after N completed turns and re-runs turn N+1 onwards.\n' +
    'Corrections (--with, --inject) make the rewind a fork with a fix. On a run that is still open they\n' +
    'are applied exactly at the rewind point; on a closed run they are refused (exit 5) before anything\n' +
    'is reset, since they could not arrive before its next turn: fork a closed run to correct it.\n' +
    'A turn the run does not have exits 5, naming the turns there are.',
  positionals: ['RUN'],
  options: {
    'to-turn': { type: 'string', value: 'N', description: 'turns to keep: go back to the boundary after N completed turns (required)' },
    reapply: { type: 'boolean', description: 're-apply signals and updates that arrived after the boundary (default: drop them)' },
    with: { type: 'string', multiple: true, value: 'JSON', description: 'a correction at the rewind point: an intervention, e.g. {"kind":"edit_call","toolCallId":"call_2_0","args":{…}}' },
    inject: { type: 'string', multiple: true, value: 'TEXT', description: 'a user message injected at the rewind point (shorthand for an inject_message --with)' },
    reason: { type: 'string', value: 'TEXT', description: 'why (recorded with the reset)' },
    ...runIdOption,
  },
  examples: [
    'rewind run-watchlist-k3j9x2ab --to-turn 2',
    `rewind run-watchlist-k3j9x2ab --to-turn 2 --with '{"kind":"edit_call","toolCallId":"call_2_0","args":{"symbol":"AMD"}}' --reason "wrong symbol"`,
    'rewind run-watchlist-k3j9x2ab --to-turn 1 --inject "Only add US stocks" --reapply --json',
  ],
  prepare(args) {
    const workflowId = args.positional(0);
    const toTurn = args.int('to-turn', 0);
    if (toTurn === undefined) throw new UsageError('missing --to-turn N (the turns to keep; see checkpoints)');
    const corrections = rewindCorrections(args);
    const reapply = args.flag('reapply');
    const reason = args.string('reason');
    const runId = optionalRunId(args);
    const options = {
      toTurn,
      ...(reapply ? { reapply } : {}),
      ...(corrections.length > 0 ? { with: corrections } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(runId !== undefined ? { runId } : {}),
    };
    return async (ctx) => {
      const rewound = await ctx.agents.rewind(workflowId, options);
      ctx.out.emit({ workflowId, ...rewound, reapply }, () => renderRewind(workflowId, rewound, corrections.length, reapply));
    };
  },
};

/** `fork RUN --to-turn N`: a new run (new workflow id) from the state at a turn boundary. */
export const forkCommand: Command = {
  name: 'fork',
  summary: 'start a new run (new workflow id) from a run\'s state at a turn boundary, optionally with a fix',
  details:
    'The fork starts at the boundary after N completed turns with the state the run had there (conversation,\n' +
    'tool outputs, planner and session state, budgets used) and runs turn N+1 onwards; nothing before the\n' +
    'boundary runs again and the original run is left as it is. It replays the run\'s history with your\n' +
    'workflows module (--workflows, as for replay) to read that state. Corrections (--with, --inject) are\n' +
    'part of the fork\'s starting state, so edits and drops of the calls it plans next apply exactly, also\n' +
    'when the original run has closed.',
  positionals: ['RUN'],
  options: {
    'to-turn': { type: 'string', value: 'N', description: 'turns to keep: fork at the boundary after N completed turns (required)' },
    'workflow-id': { type: 'string', value: 'ID', description: 'workflow id of the fork (default: RUN-fork-<random>)' },
    workflows: { type: 'string', value: 'PATH', description: 'your workflows module (default: $DURABLE_AGENTS_WORKFLOWS)' },
    with: { type: 'string', multiple: true, value: 'JSON', description: 'a correction in the fork: an intervention, e.g. {"kind":"edit_call","toolCallId":"call_2_0","args":{…}}' },
    inject: { type: 'string', multiple: true, value: 'TEXT', description: 'a user message injected in the fork (shorthand for an inject_message --with)' },
    ...runIdOption,
  },
  examples: [
    'fork run-watchlist-k3j9x2ab --to-turn 2 --workflows ./src/workflows.ts',
    `fork run-watchlist-k3j9x2ab --to-turn 1 --workflow-id try-amd --with '{"kind":"edit_call","toolCallId":"call_1_0","args":{"symbol":"AMD"}}'`,
  ],
  prepare(args, env) {
    const workflowId = args.positional(0);
    const toTurn = args.int('to-turn', 0);
    if (toTurn === undefined) throw new UsageError('missing --to-turn N (the turns to keep; see checkpoints)');
    const corrections = rewindCorrections(args);
    const workflowsPath = workflowsModule(args.string('workflows'), 'fork', env);
    const forkId = args.string('workflow-id');
    const runId = optionalRunId(args);
    return async (ctx) => {
      const forked = await forkWithWorkerSdk(ctx.agents.client, workflowId, {
        toTurn,
        workflowsPath,
        ...(forkId !== undefined ? { workflowId: forkId } : {}),
        ...(corrections.length > 0 ? { with: corrections } : {}),
        ...(runId !== undefined ? { runId } : {}),
      }, (line) => ctx.progress?.(line));
      ctx.out.emit({ from: workflowId, ...forked }, () => [
        `forked ${workflowId} at the boundary after turn ${forked.checkpoint.turn} (event ${forked.checkpoint.eventId}, ${forked.checkpoint.time})`,
        `new run: ${forked.workflowId} (run id ${forked.runId})`,
        `corrections: ${corrections.length === 0 ? 'none' : `${corrections.length}, applied in the fork at their safe points`}`,
      ]);
    };
  },
};
