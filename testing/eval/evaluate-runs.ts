import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type OpenAI from 'openai';
import type { PayloadCodec } from '@temporalio/common';
import { AgentClient } from '../../client/agent-client';
import type { ToolImplementation } from '../../activities';
import { openAIFromEnv, type ModelActivityDependencies } from '../../activities/model';
import type { AgentDefinition } from '../../workflows/agents/agent-registry';
import { bundleAgentWorkflows } from '../../worker/create-worker';
import { isLlmAgent } from '../../workflows/planners/llm/llm-agent';
import { DurableAgentsPlugin } from '../../worker/plugin';
import { startDevServer } from '../dev-server';
import { startInput } from './candidate-histories';
import { runCandidate, outputValidity } from './candidate-run';
import { CandidateTree } from './candidate-tree';
import { firstDivergence, sameFinal, totalsOf } from './compare';
import { loadRecordings } from './load-recordings';
import { recordedToolImplementations } from './recorded-tools';
import { RecordingError, type Recording } from './recording';
import { summarize } from './summary';
import { missingSubRuns, recordedTreeTurns, treeInterventions } from './tree-report';
import type { EvalChange, EvaluationReport, Judge, RunEvaluation, RunSide } from './types';
import { freeLoopbackPort } from '../dev-server-port';
import type { McpServerConfig } from '../../activities/mcp/server-config';
import { agentsRecordingsRun, missingMcpServer } from './needed-agents';
import { recordedMcpCalls } from './recorded-mcp-calls';

/** Options of {@link evaluateRuns}. */
export interface EvaluateRunsOptions {
  /**
   * History files or directories (walked for `*.json`), or histories already parsed, each with a
   * name. A run that continued as new is given as all its executions' histories; a sub-agent run's
   * history given with its parent's is evaluated as part of its parent's run (see {@link loadRecordings}).
   */
  readonly histories: string | readonly string[] | readonly { readonly source: string; readonly json: unknown }[];
  /** The candidate's workflows module (bundled once); or `workflowBundle`. */
  readonly workflowsPath?: string;
  readonly workflowBundle?: WorkflowBundleOption;
  /** The candidate's agent definitions (what its worker is given as `agents`): their tools and model settings. */
  readonly agents: readonly AgentDefinition[];
  /** What to change for the candidate: its model, its instructions. Default none (the recorded setup, re-run). */
  readonly change?: EvalChange;
  /** Compares each recorded run with its candidate. */
  readonly judge?: Judge;
  /**
   * Implementations of read-only tools to run for real when the recording cannot answer a call
   * (never give a tool with side effects here). Default none: such calls fail as "not recorded".
   */
  readonly liveTools?: readonly ToolImplementation[];
  /**
   * The MCP servers the toolsets of the recorded runs' agents name, as a worker's `mcpServers`.
   * The candidates list the toolsets' tools from them; their MCP calls are answered from the
   * recording, as any tool's, and never reach a server. Only the servers of agents a recording
   * runs (or a sub-agent of one) are needed. Default none.
   */
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  /** The model endpoint of LLM agents. Default `openAIFromEnv()` (OPENAI_BASE_URL, OPENAI_API_KEY). */
  readonly openai?: Pick<OpenAI, 'chat'> | null;
  /** Further model-activity settings, e.g. `{ prices }` to get cost in money. */
  readonly model?: Omit<ModelActivityDependencies, 'openai' | 'findAgent'>;
  /** A Temporal server to run the candidates on. Default: a throwaway dev server (127.0.0.1, in memory), stopped afterwards. */
  readonly server?: { readonly address: string; readonly namespace?: string };
  /** How long one candidate run may take before it is killed and reported. Default 120 s. */
  readonly runTimeoutMs?: number;
  /**
   * The recording deployment's payload codecs, e.g. `[new EncryptionCodec(keys)]` when it encrypts
   * payloads. Recordings are decoded with them, and the candidates' worker and client use them
   * too, so no recorded value reaches the evaluation's server unencoded. Default none.
   */
  readonly payloadCodecs?: readonly PayloadCodec[];
  /** Progress lines (default none). */
  readonly log?: (line: string) => void;
}

/** One side of a run: its own turns, with `turns` counting those of its sub-agent runs too. */
function side(recording: Recording, status: string, treeTurns: number): RunSide {
  const own = totalsOf(recording.result, recording.steps);
  const totals = own ? { ...own, turns: treeTurns } : undefined;
  return {
    input: recording.input,
    steps: recording.steps,
    ...(recording.result?.final ? { final: recording.result.final } : {}),
    status: recording.result?.status ?? status,
    ...(recording.failure ? { failure: recording.failure } : {}),
    ...(totals ? { totals } : {}),
  };
}

async function judged(judge: Judge | undefined, recorded: RunSide, candidate: RunSide): Promise<RunEvaluation['judge']> {
  if (!judge) return undefined;
  try {
    return await judge(recorded, candidate);
  } catch (err) {
    return { pass: false, reason: `the judge threw: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * Evaluates a change against recorded runs: for each recorded `agentRun` history, runs the
 * candidate (your workflows module and agents, with `change` applied) from the recorded input on
 * a real Temporal server and worker, with every tool answered from the recording (matched by
 * tool and arguments: the recorded result or error; nothing with a side effect runs) and every
 * approval and answer given as recorded. Reports per run where the candidate first chose other
 * tools or arguments, turns, tool calls, tokens and cost against the recording, structured-output
 * validity, both final answers, the calls the recording could not answer and your judge's verdict.
 *
 * @throws RecordingError naming the file when a history is missing, not JSON, not a workflow history or not an agent run,
 *   or when its agent (or a sub-agent it runs) has a toolset of an MCP server `mcpServers` does not give.
 * @throws OutsideSupportWindowError when a history was recorded before this version's support window.
 * @throws Error when a recording is a run of an LLM agent and no model endpoint is configured.
 * @example
 * declare const myAgents: AgentDefinition[]; // the definitions your worker serves
 * const report = await evaluateRuns({
 *   histories: ['test/recorded-runs'], workflowsPath: require.resolve('./workflows'), agents: myAgents,
 *   change: { model: 'gpt-4.1-mini' },
 * });
 * console.log(formatEvalTable(report));
 * if (failedGates(report, ['no-tool-divergence']).length > 0) process.exitCode = 1;
 */
export async function evaluateRuns(options: EvaluateRunsOptions): Promise<EvaluationReport> {
  if (!options.workflowBundle && !options.workflowsPath) throw new Error('evaluateRuns: give workflowsPath (the candidate\'s workflows module) or workflowBundle');
  const payloadCodecs = [...(options.payloadCodecs ?? [])];
  const recordings = await loadRecordings(options.histories, payloadCodecs);
  const change = options.change ?? {};
  const log = options.log ?? (() => {});
  const unknown = [...new Set(recordings.map((r) => r.input.agent))].filter((name) => !options.agents.some((a) => a.name === name));
  if (unknown.length) {
    throw new RecordingError(`the recordings are runs of ${unknown.join(', ')}, which the given agents do not define (they define: ${options.agents.map((a) => a.name).join(', ') || 'none'})`);
  }
  const missingServer = missingMcpServer(
    recordings.map((r) => ({ source: r.source, agent: r.input.agent })),
    options.agents,
    Object.keys(options.mcpServers ?? {}),
  );
  if (missingServer) throw new RecordingError(missingServer);
  // The worker serves only the agents the recordings run: the others may need what it was not given.
  const served = agentsRecordingsRun([...new Set(recordings.map((r) => r.input.agent))], options.agents);
  const openai = options.openai === undefined ? (openAIFromEnv() ?? null) : options.openai;
  const planned = recordings.filter((r) => isLlmAgent(options.agents.find((a) => a.name === r.input.agent)));
  if (!openai && planned.length) {
    throw new Error(`${planned[0]!.source} is a run of the LLM agent ${planned[0]!.input.agent}, and no model endpoint is configured: give openai, or set OPENAI_BASE_URL / OPENAI_API_KEY`);
  }
  const bundle = options.workflowBundle ?? (await bundleAgentWorkflows(options.workflowsPath!));
  const owned = options.server ? undefined : await startDevServer({ port: await freeLoopbackPort(), uiPort: await freeLoopbackPort(), dbFile: null, log: () => {} });
  const address = options.server?.address ?? owned!.address;
  const namespace = options.server?.namespace ?? 'default';
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  try {
    const taskQueue = `eval-${randomUUID()}`;
    // Evaluation runs are throwaway: no search attributes (a given server need not have them registered).
    const agents = new AgentClient(new Client({ connection: clientConnection, namespace, dataConverter: { payloadCodecs } }), taskQueue, false);
    const tree = new CandidateTree(options.agents, (id) => startInput(agents, id));
    const router = { answersOf: async (id: string) => (await tree.node(id))?.answers };
    const plugin = new DurableAgentsPlugin({
      agents: served,
      tools: recordedToolImplementations(served, router, options.liveTools),
      openai,
      ...(options.model ? { model: options.model } : {}),
      ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
    });
    const worker = await Worker.create({
      connection,
      namespace,
      taskQueue,
      workflowBundle: bundle,
      plugins: [plugin],
      dataConverter: { payloadCodecs },
      interceptors: { activity: [recordedMcpCalls(router)] },
    });
    const prefix = `eval-${randomUUID().slice(0, 8)}`;
    const runs = await worker.runUntil(async () => {
      const evaluations: RunEvaluation[] = [];
      for (const [index, recording] of recordings.entries()) {
        log(`evaluating ${recording.source} (${index + 1}/${recordings.length})…`);
        evaluations.push(await evaluateOne(agents, `${prefix}-${index + 1}`, recording, change, options, tree));
      }
      return evaluations;
    });
    return summarize(runs, change);
  } finally {
    await clientConnection.close();
    await connection.close();
    await owned?.stop();
  }
}

async function evaluateOne(
  agents: AgentClient,
  workflowId: string,
  recording: Recording,
  change: EvalChange,
  options: EvaluateRunsOptions,
  tree: CandidateTree,
): Promise<RunEvaluation> {
  const agent = options.agents.find((a) => a.name === recording.input.agent);
  const recorded = side(recording, recording.ending, recordedTreeTurns(recording));
  const fromTree = { missingSubRuns: missingSubRuns(recording), interventions: treeInterventions(recording) };
  try {
    const outcome = await runCandidate(agents, workflowId, recording, change, agent, tree, options.runTimeoutMs ?? 120_000);
    const candidate = side(outcome.recording, outcome.status, outcome.recording.steps.length + outcome.tree.turns);
    const divergence = firstDivergence(recording.steps, outcome.recording.steps);
    const output = outputValidity(agent, outcome.recording.result);
    const verdict = await judged(options.judge, recorded, candidate);
    return {
      source: recording.source,
      agent: recording.input.agent,
      candidateWorkflowId: workflowId,
      ...(divergence ? { divergence } : {}),
      recorded,
      candidate,
      sameFinal: sameFinal(recorded.final, candidate.final),
      ...(output ? { output } : {}),
      unrecorded: [...outcome.node.answers.unrecorded, ...outcome.node.humans.unrecorded, ...outcome.tree.unrecorded],
      subRuns: outcome.tree.subRuns,
      ...fromTree,
      answeredCalls: outcome.node.answers.answered,
      liveCalls: outcome.node.answers.ranForReal,
      ...(verdict ? { judge: verdict } : {}),
    };
  } catch (err) {
    return {
      source: recording.source,
      agent: recording.input.agent,
      candidateWorkflowId: workflowId,
      recorded,
      candidate: { input: recording.input, steps: [], status: 'not_run' },
      sameFinal: false,
      unrecorded: [],
      subRuns: [],
      ...fromTree,
      answeredCalls: 0,
      liveCalls: 0,
      error: err instanceof Error ? err.message : String(err),
    };
  }
}
