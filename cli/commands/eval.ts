import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command, OutputContext } from '../command';
import { ExitCode, UsageError } from '../exit-codes';
import { withWorkerRuntime } from '../replay';
import { describeWorkflowCode, workflowBundleOf, workflowCodeOf, workflowCodeOptions, type WorkflowCode } from '../workflow-code';
import type { AgentDefinition } from '../../workflows/agents/agent-registry';
import type { EvaluationReport, Judge } from '../../testing/eval';
// The types module only (no worker code): agentctl loads the evaluation itself when it runs one.
import { evalGates as gateNames, type EvalGate } from '../../testing/eval/types';
import { priceTableSchema, type PriceTable } from '../../contracts/pricing';
import { approvalRulesSchema, type ApprovalRules } from '../../contracts/approval-policy';
import { describeIssues } from '../../contracts/json';
import { dataConverterFromEnv } from '../../config/encryption';
import { checkMcpServers, type McpServerConfig } from '../../activities/mcp/server-config';
const formats = ['table', 'json', 'junit'] as const;
type Format = (typeof formats)[number];

function isAgent(value: unknown): value is AgentDefinition {
  const v = value as Partial<AgentDefinition> | undefined;
  return typeof v === 'object' && v !== null && typeof v.name === 'string' && Array.isArray(v.tools) && typeof v.createPlanner === 'function';
}

/**
 * Node's own `import()`. The package's CommonJS build turns an `import()` in this file into
 * `require()`, which loads neither a file URL nor an ES module; this one is left as it is.
 */
const nativeImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>;

/**
 * Loads a module (a compiled .js/.cjs/.mjs, or .ts when agentctl runs under tsx) as `import()` gives
 * it. A CommonJS module is required (its exports, and all of them as `default`, as `import()` shows a
 * CommonJS module), an ES module imported: requiring first, as jest's own loader does, lets agentctl
 * run where `import()` is not Node's (inside a vm context: an ops tool that embeds it, a test).
 */
async function loadModule(path: string, flag: string): Promise<Record<string, unknown>> {
  try {
    return await requireOrImport(path);
  } catch (err) {
    throw new UsageError(`${flag} ${path}: cannot load it (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** Error codes of `require()` meaning "an ES module: import it" (Node 20; Node 22 with top-level await). */
const esModuleCodes: ReadonlySet<string | undefined> = new Set(['ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE']);

async function requireOrImport(path: string): Promise<Record<string, unknown>> {
  let exports: unknown;
  try {
    // A path known only when the command runs: require() is the loader here, not an import.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    exports = require(path);
  } catch (err) {
    if (!esModuleCodes.has((err as NodeJS.ErrnoException).code)) throw err;
    return nativeImport(pathToFileURL(path).href);
  }
  return { ...(typeof exports === 'object' && exports !== null ? exports : {}), default: exports };
}

/**
 * Whether two definitions of one name serve an evaluation alike: its worker uses a definition for
 * the tools it answers and, for a model-planned agent, the model call's settings (the planner
 * itself runs in the workflows module). Versions of a planner written as code with the same tools
 * are alike; model-planned ones are only when they are the same definition.
 */
function alike(a: AgentDefinition, b: AgentDefinition): boolean {
  if (a === b) return true;
  // isLlmAgent's test, without loading the model planner at agentctl's start.
  const modelPlanned = (agent: AgentDefinition): boolean => typeof (agent as { llm?: unknown }).llm === 'object';
  if (modelPlanned(a) || modelPlanned(b)) return false;
  const tools = (agent: AgentDefinition): string => agent.tools.map((t) => t.name).sort().join(',');
  return tools(a) === tools(b);
}

/** Every agent definition a module exports, alone or in arrays (one per name). */
export function agentsOf(exports: Record<string, unknown>, path: string): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  const values = Object.values(exports).flatMap((v) => (Array.isArray(v) ? v : [v]));
  // A CommonJS module imported as ESM puts its exports under `default` too.
  const fromDefault = exports.default && typeof exports.default === 'object' ? Object.values(exports.default as Record<string, unknown>).flatMap((v) => (Array.isArray(v) ? v : [v])) : [];
  for (const value of [...values, ...fromDefault]) {
    if (!isAgent(value)) continue;
    const known = byName.get(value.name);
    if (known && !alike(known, value)) throw new UsageError(`--agent-module ${path}: two different agents are named ${value.name} (other tools, or planned by a model): export the candidate's only`);
    if (!known) byName.set(value.name, value);
  }
  if (byName.size === 0) throw new UsageError(`--agent-module ${path}: it exports no agent definitions (defineAgent / defineLlmAgent), alone or in an array`);
  return [...byName.values()];
}

function judgeOf(exports: Record<string, unknown>, path: string): Judge {
  const fn = exports.judge ?? exports.default ?? (exports.default as Record<string, unknown> | undefined)?.judge;
  if (typeof fn !== 'function') throw new UsageError(`--judge ${path}: it exports no function named judge (nor a default one)`);
  return fn as Judge;
}

function existing(path: string, flag: string): string {
  const resolved = resolve(path);
  if (!existsSync(resolved)) throw new UsageError(`${flag} ${path}: no such file`);
  return resolved;
}

/** The price table of `--prices FILE` (JSON, as `model.prices` of a worker), checked. */
function pricesFrom(path: string): PriceTable {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(existing(path, '--prices'), 'utf8'));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--prices ${path}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const table = priceTableSchema().safeParse(json);
  if (!table.success) throw new UsageError(`--prices ${path}: not a price table: ${describeIssues(table.error)}`);
  return table.data;
}

/** The MCP servers of `--mcp-config FILE` (JSON: a worker's `mcpServers`, by name), checked. */
function mcpServersFrom(path: string): Record<string, McpServerConfig> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(existing(path, '--mcp-config'), 'utf8'));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--mcp-config ${path}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new UsageError(`--mcp-config ${path}: not an object of MCP servers by name ({ "files": { "transport": "stdio", "command": … } })`);
  }
  const servers = json as Record<string, McpServerConfig>;
  try {
    checkMcpServers(servers);
  } catch (err) {
    throw new UsageError(`--mcp-config ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return servers;
}

function render(report: EvaluationReport, format: Format, gates: readonly EvalGate[], formatters: typeof import('../../testing/eval')): string {
  if (format === 'json') return JSON.stringify(report, null, 2);
  if (format === 'junit') return formatters.formatEvalJunit(report, gates.length ? gates : undefined);
  return formatters.formatEvalTable(report);
}

/** The approval rules of `--approval-rules FILE`, checked; errors name the file and the field. */
function approvalRulesFrom(file: string): ApprovalRules {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(existing(file, '--approval-rules'), 'utf8'));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--approval-rules ${file}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = approvalRulesSchema().safeParse(raw);
  if (!parsed.success) throw new UsageError(`--approval-rules ${file}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

interface EvalPlan {
  readonly histories: readonly string[];
  readonly code: WorkflowCode;
  readonly agentModule: string;
  readonly judgeModule?: string;
  readonly model?: string;
  readonly instructions?: string;
  readonly approvalRules?: ApprovalRules;
  readonly format: Format;
  readonly gates: readonly EvalGate[];
  readonly out?: string;
  readonly server?: { address: string; namespace: string };
  readonly prices?: PriceTable;
  readonly mcpServers?: Record<string, McpServerConfig>;
  /** The CLI's environment: the model endpoint (OPENAI_*) and the encryption keys. */
  readonly env: NodeJS.ProcessEnv;
}

async function evaluate(plan: EvalPlan, ctx: OutputContext): Promise<ExitCode> {
  const progress = (line: string): void => ctx.progress?.(line);
  const agents = agentsOf(await loadModule(plan.agentModule, '--agent-module'), plan.agentModule);
  const judge = plan.judgeModule ? judgeOf(await loadModule(plan.judgeModule, '--judge'), plan.judgeModule) : undefined;
  const evalModule = await import('../../testing/eval');
  const { openAIFromEnv } = await import('../../activities/model/openai-from-env');
  const { OutsideSupportWindowError } = await import('../../workflows/versioning/support-window');
  let report: EvaluationReport;
  try {
    // Bad histories are refused before the bundle is built or any server starts.
    // Encrypted recordings are read with the keys of DURABLE_AGENTS_ENCRYPTION_KEYS, as `replay` reads them.
    const { payloadCodecs } = dataConverterFromEnv(plan.env);
    await evalModule.loadRecordings(plan.histories, payloadCodecs);
    progress(`evaluating against ${describeWorkflowCode(plan.code)}${plan.server ? '' : ' on a throwaway dev server'}…`);
    report = await withWorkerRuntime(progress, async () =>
      evalModule.evaluateRuns({
        histories: plan.histories,
        workflowBundle: await workflowBundleOf(plan.code),
        agents,
        openai: openAIFromEnv(plan.env) ?? null,
        change: { ...(plan.model ? { model: plan.model } : {}), ...(plan.instructions ? { instructions: plan.instructions } : {}), ...(plan.approvalRules ? { approvalRules: plan.approvalRules } : {}) },
        ...(judge ? { judge } : {}),
        ...(plan.server ? { server: plan.server } : {}),
        ...(plan.prices ? { model: { prices: plan.prices } } : {}),
        ...(plan.mcpServers ? { mcpServers: plan.mcpServers } : {}),
        payloadCodecs,
        log: progress,
      }),
    );
  } catch (err) {
    if (err instanceof evalModule.RecordingError) throw new UsageError(err.message);
    if (err instanceof OutsideSupportWindowError) {
      ctx.out.emit({ ok: false, kind: 'outside_support_window', problem: err.message }, () => `outside the support window: ${err.message}`);
      return ExitCode.outsideSupportWindow;
    }
    throw err;
  }
  const text = render(report, plan.format, plan.gates, evalModule);
  if (plan.out) {
    writeFileSync(plan.out, text.endsWith('\n') ? text : `${text}\n`);
    progress(`wrote the ${plan.format} report to ${plan.out}`);
    if (plan.format !== 'table') ctx.out.text(evalModule.formatEvalTable(report));
  } else {
    ctx.out.text(text);
  }
  const failed = evalModule.failedGates(report, plan.gates);
  for (const { gate, runs } of failed) for (const run of runs) progress(`gate ${gate} failed: ${run.source}: ${run.reason}`);
  return failed.length ? ExitCode.evalGateFailed : ExitCode.ok;
}

/** `eval HISTORY…`: runs a candidate (workflows, agents, model, instructions) against recorded runs. */
export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate a change (model, instructions, agent version) against recorded runs',
  details:
    'Runs the candidate from each recorded run\'s input (history files or directories of *.json, as\n' +
    '`history export` writes them) on a throwaway dev server, or on --address; every tool call is\n' +
    'answered from the recording (same tool and arguments: the recorded result or error), so nothing\n' +
    'with a side effect runs; a call the recording cannot answer fails as "not recorded" and is\n' +
    'reported. Approvals and answers are given as recorded. The model endpoint is OPENAI_BASE_URL /\n' +
    'OPENAI_API_KEY. Encrypted recordings are decoded with DURABLE_AGENTS_ENCRYPTION_KEYS, and the\n' +
    'candidates\' payloads encrypted with them. --workflows is the candidate\'s workflows module\n' +
    '(its planners run there; or --workflow-bundle, a bundle of it built before), --agent-module the module that exports its agent definitions (a\n' +
    'compiled .js or .mjs, or .ts under tsx), --judge a module exporting judge(recorded, candidate)\n' +
    '=> { pass, score?, reason? }, --prices a price table (JSON) for the cost in money, --mcp-config\n' +
    'the MCP servers of the recorded agents\' toolsets (JSON, as a worker\'s mcpServers): the candidate\n' +
    'lists their tools from them, and its MCP calls too are answered from the recording. Only what a\n' +
    'recording runs is needed: other agents of --agent-module are not served.\n' +
    'Reports where each run first diverges (turn, tools, arguments), turns, tool calls, tokens and\n' +
    'cost against the recording, output validity, final answers. Exits 8 when a --gate fails:\n' +
    '  no-divergence        no run chose other tools or arguments\n' +
    '  no-tool-divergence   no run chose other tools (arguments may differ)\n' +
    '  no-unrecorded-calls  every call, approval and answer came from the recording\n' +
    '  judge                the judge passed every run\n' +
    '  valid-output         every structured answer matches the agent\'s output schema\n' +
    '  no-errors            every candidate could be run',
  positionals: ['HISTORY…'],
  options: {
    ...workflowCodeOptions,
    'agent-module': { type: 'string', value: 'PATH', description: "module exporting the candidate's agent definitions (required)" },
    model: { type: 'string', value: 'M', description: 'model of LLM agents for the candidate (plannerOptions.model)' },
    instructions: { type: 'string', value: 'FILE', description: "instructions replacing the agent's, read from FILE" },
    'approval-rules': { type: 'string', value: 'FILE', description: 'approval rules ({ version, rules } JSON) the candidate runs under instead of the recorded ones' },
    judge: { type: 'string', value: 'PATH', description: 'module exporting a judge function' },
    format: { type: 'string', value: 'FORMAT', description: 'table (default), json or junit' },
    out: { type: 'string', value: 'FILE', description: 'write the report to FILE (the table still goes to stdout)' },
    prices: { type: 'string', value: 'FILE', description: 'price table (JSON: currency, models: {name: {inputPerMillion, outputPerMillion, …}}): cost in money' },
    'mcp-config': { type: 'string', value: 'FILE', description: 'MCP servers by name (JSON, as a worker\'s mcpServers: {"files": {"transport": "stdio", "command": …}})' },
    gate: { type: 'string', value: 'GATE', multiple: true, description: `fail (exit 8) when a run fails it: ${gateNames.join(', ')}` },
  },
  examples: [
    'eval recorded/ --workflows dist/workflows.js --agent-module dist/agents.js --model gpt-4.1-mini',
    'eval recorded/*.json --workflows dist/workflows.js --agent-module dist/agents.js --instructions prompt.txt --gate no-tool-divergence --format junit --out eval.xml',
  ],
  prepare(args, env) {
    const histories = args.positionals;
    if (histories.length === 0) throw new UsageError('missing HISTORY (history files or directories)');
    const code = workflowCodeOf(args, 'eval', env);
    const agentModuleFlag = args.string('agent-module');
    if (!agentModuleFlag) throw new UsageError('eval needs --agent-module PATH: the module that exports your agent definitions (what the worker is given as agents)');
    const agentModule = existing(agentModuleFlag, '--agent-module');
    const judgeFlag = args.string('judge');
    const instructionsFile = args.string('instructions');
    let instructions: string | undefined;
    if (instructionsFile !== undefined) {
      instructions = readFileSync(existing(instructionsFile, '--instructions'), 'utf8').trim();
      if (!instructions) throw new UsageError(`--instructions ${instructionsFile}: the file is empty`);
    }
    const model = args.string('model');
    if (model !== undefined && model.trim() === '') throw new UsageError('--model must not be empty');
    const rulesFile = args.string('approval-rules');
    const approvalRules = rulesFile !== undefined ? approvalRulesFrom(rulesFile) : undefined;
    const format = (args.flag('json') ? 'json' : (args.string('format') ?? 'table')) as Format;
    if (!formats.includes(format)) throw new UsageError(`--format must be one of ${formats.join(', ')}, got '${format}'`);
    const gates = args.strings('gate').flatMap((g) => g.split(',')).map((g) => g.trim()).filter(Boolean);
    for (const g of gates) if (!gateNames.includes(g as EvalGate)) throw new UsageError(`--gate ${g}: unknown gate; use ${gateNames.join(', ')}`);
    if (gates.includes('judge') && !judgeFlag) throw new UsageError('--gate judge needs --judge PATH');
    const address = args.string('address');
    const out = args.string('out');
    const pricesFile = args.string('prices');
    const mcpConfig = args.string('mcp-config');
    const plan: EvalPlan = {
      histories,
      code,
      agentModule,
      ...(judgeFlag ? { judgeModule: existing(judgeFlag, '--judge') } : {}),
      ...(model ? { model } : {}),
      ...(instructions ? { instructions } : {}),
      ...(approvalRules ? { approvalRules } : {}),
      format,
      gates: gates as EvalGate[],
      ...(out ? { out } : {}),
      ...(address ? { server: { address, namespace: args.string('namespace') ?? 'default' } } : {}),
      ...(pricesFile !== undefined ? { prices: pricesFrom(pricesFile) } : {}),
      ...(mcpConfig !== undefined ? { mcpServers: mcpServersFrom(mcpConfig) } : {}),
      env,
    };
    return { offline: (ctx) => evaluate(plan, ctx) };
  },
};
