import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentClientError, type AgentClient } from '../../client/agent-client';
import { parseJsonValue } from '../args';
import type { Command, CommandContext, OutputContext } from '../command';
import { ExitCode, UsageError } from '../exit-codes';
import { replayHistory } from '../replay';
import { describeWorkflowCode, workflowCodeOf, workflowCodeOptions, type WorkflowCode } from '../workflow-code';

const runIdOption = { type: 'string', value: 'ID', description: 'execution (run id) to export (default: the latest)' } as const;

/** The least a history JSON needs for replay: its events (the rest is the SDK's business). */
const historyJsonSchema = z.looseObject({ events: z.array(z.unknown()).min(1, 'a history has at least one event') });
type HistoryJson = z.output<typeof historyJsonSchema>;

/** `history export RUN`: the run's history as JSON, to a file or stdout. */
export const historyCommand: Command = {
  name: 'history',
  summary: "history export RUN: write a run's history as JSON (to --out FILE or stdout)",
  details:
    'The only subcommand is export. The JSON is the format of `temporal workflow show --output json`;\n' +
    "replay it with 'agentctl replay FILE' or the SDK's replay tools.",
  positionals: ['export', 'RUN'],
  optionalPositionals: 2,
  options: {
    'run-id': runIdOption,
    out: { type: 'string', value: 'FILE', description: 'write the JSON to FILE (default: stdout); with --all-executions, a directory' },
    'all-executions': {
      type: 'boolean',
      description: 'every execution of a run that continued as new, one file each in the --out directory (<n>-<run id>.json, first to last): what eval reads as one run',
    },
  },
  examples: [
    'history export run-watchlist-k3j9x2ab --out run.json',
    'history export run-watchlist-k3j9x2ab > run.json',
    'history export run-watchlist-k3j9x2ab --all-executions --out recorded/run-watchlist-k3j9x2ab',
  ],
  prepare(args) {
    const [sub, workflowId] = args.positionals;
    if (sub === undefined) throw new UsageError("missing subcommand; use 'history export RUN'");
    if (sub !== 'export') throw new UsageError(`unknown history subcommand '${sub}'; use 'history export RUN'`);
    if (workflowId === undefined) throw new UsageError('missing RUN');
    const runId = args.string('run-id');
    const out = args.string('out');
    if (out !== undefined && out.trim() === '') throw new UsageError('--out must not be empty');
    if (args.flag('all-executions')) {
      if (out === undefined) throw new UsageError('--all-executions writes one file per execution: give --out DIRECTORY');
      return (ctx) => exportAllExecutions(ctx, workflowId, runId, out);
    }
    return async (ctx) => {
      const json = await ctx.agents.exportHistory(workflowId, runId);
      if (out === undefined) {
        ctx.out.text(json);
        return;
      }
      writeFileSync(out, json.endsWith('\n') ? json : `${json}\n`);
      const events = historyJsonSchema.safeParse(JSON.parse(json)).data?.events.length ?? 0;
      ctx.out.emit({ workflowId, file: out, events }, () => `wrote ${events} events of ${workflowId} to ${out}`);
    };
  },
};

/** `history export RUN --all-executions --out DIR`: one file per execution, first to last. */
async function exportAllExecutions(ctx: CommandContext, workflowId: string, runId: string | undefined, dir: string): Promise<void> {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`--out ${dir}: not a directory`);
  const executions = await ctx.agents.exportExecutions(workflowId, runId);
  mkdirSync(dir, { recursive: true });
  const files = executions.map(({ runId: id, json }, i) => {
    const file = join(dir, `${i + 1}-${id}.json`);
    writeFileSync(file, json.endsWith('\n') ? json : `${json}\n`);
    return file;
  });
  ctx.out.emit({ workflowId, files }, () => `wrote ${files.length} execution(s) of ${workflowId} to ${dir}`);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function readHistoryFile(path: string): HistoryJson {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path} (${err instanceof Error ? err.message : String(err)})`);
  }
  return parseJsonValue(path, text, historyJsonSchema);
}

async function exportedHistory(agents: AgentClient, target: string, runId: string | undefined): Promise<HistoryJson> {
  try {
    return parseJsonValue(`history of ${target}`, await agents.exportHistory(target, runId), historyJsonSchema);
  } catch (err) {
    if (err instanceof AgentClientError && err.type === 'run_not_found') {
      throw new AgentClientError('run_not_found', `${target} is neither a file nor a run id`);
    }
    throw err;
  }
}

/** Replays a history JSON and reports the outcome; nondeterminism is an outcome (exit 6), not an error. */
async function replay(history: HistoryJson, source: string, code: WorkflowCode, ctx: OutputContext): Promise<ExitCode> {
  ctx.progress?.(`replaying ${history.events.length} events of ${source} against ${describeWorkflowCode(code)}…`);
  const outcome = await replayHistory(history, code, (line) => ctx.progress?.(line));
  if (outcome.ok) {
    ctx.out.emit({ ok: true, events: outcome.events }, () => `replayed ${outcome.events} events: deterministic`);
    return ExitCode.ok;
  }
  if (outcome.kind === 'nondeterminism') {
    ctx.out.emit(outcome, () => [`nondeterministic: ${outcome.problem}`, `detail: ${outcome.detail.replace(/\s*\n\s*/g, ' ').trim()}`]);
    return ExitCode.nondeterministic;
  }
  if (outcome.kind === 'outside_support_window') {
    ctx.out.emit(outcome, () => `outside the support window: ${outcome.problem}`);
    return ExitCode.outsideSupportWindow;
  }
  if (outcome.kind === 'unknown_agent') throw new UsageError(outcome.problem);
  throw new Error(`replay failed: ${outcome.problem}`);
}

/** `replay FILE|RUN`: replays a history against the current workflow code. */
export const replayCommand: Command = {
  name: 'replay',
  summary: 'replay a history (a file, or a run exported now) against your workflows module or a workflow bundle',
  details:
    'An argument naming an existing file (or ending in .json) is read as history JSON (see history\n' +
    'export) and needs no server; anything else is a run id whose history is exported first. --workflows names\n' +
    'your workflows module (the worker\'s workflowsPath; default $DURABLE_AGENTS_WORKFLOWS). Building the workflow bundle\n' +
    'takes a few seconds; --workflow-bundle instead loads a bundle built before as it is (the file your workers\n' +
    'load as workflowBundle: { codePath }: what is about to be deployed). Exits 0 when the history replays ("deterministic") and 6 when the current\n' +
    'code would act differently, naming which event and which command differed, with the SDK\'s\n' +
    'message on the next line. A history recorded by a release before this version\'s support window\n' +
    'exits 7 naming the window and the release to finish it on; one whose agent is not in that bundle\n' +
    'is reported as such (exit 2).',
  positionals: ['FILE|RUN'],
  options: {
    'run-id': { type: 'string', value: 'ID', description: 'execution to replay when replaying a run (default: the latest)' },
    ...workflowCodeOptions,
  },
  examples: ['replay run.json --workflows src/workflows.ts', 'replay run-watchlist-k3j9x2ab --workflows dist/workflows.js --json', 'replay run.json --workflow-bundle dist/workflow-bundle.js'],
  prepare(args, env) {
    const target = args.positional(0);
    const runId = args.string('run-id');
    const code = workflowCodeOf(args, 'replay', env);
    if (isFile(target)) {
      if (runId !== undefined) throw new UsageError(`--run-id applies to a run, and ${target} is a file`);
      const history = readHistoryFile(target);
      return { offline: (ctx) => replay(history, target, code, ctx) };
    }
    if (target.endsWith('.json')) throw new UsageError(`cannot read ${target}: no such file (an argument ending in .json is a file)`);
    return async (ctx) => replay(await exportedHistory(ctx.agents, target, runId), target, code, ctx);
  },
};
