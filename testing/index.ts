/**
 * `durable-agents/testing`: what your tests need — a throwaway Temporal dev server, a
 * scriptable OpenAI-compatible fake model server, replay of recorded histories, and evaluation
 * of a change (model, instructions, agent version) against recorded runs (`evaluateRuns`).
 *
 * @example
 * const server = await startDevServer({ port: 17233, dbFile: null });
 * const model = (await FakeOpenAIServer.start()).script(callTools(toolCall('add_note', { text: 'hi' })), say('done'));
 * // a worker with OPENAI_BASE_URL=model.baseURL (or createAgentWorker({ openai: new OpenAI({ baseURL: model.baseURL, apiKey: 'test' }) }))
 * const results = await replayAgentHistories('test/histories', { workflowsPath: require.resolve('../src/workflows') });
 */
export { startDevServer, PortInUseError, devServerSafetyArgs, searchAttributeArgs, type DevServer, type DevServerOptions, type DevServerPortRole } from './dev-server';
export { devServerPort, devServerPorts, withoutPortFlag } from './dev-server-port';
export { provisionTemporalCli, findTemporalCli, pinnedTemporalCli, type TemporalCli } from './temporal-cli';
export { plannerContext, type PlannerContextOptions } from './planner-context';
export { findHistoryFiles } from './history-files';
export { replayAgentHistories, type HistoryReplay, type ReplayHistoriesOptions } from './replay-histories';
export { assertInSupportWindow } from '../worker/replay';
export { OutsideSupportWindowError } from '../workflows/versioning/support-window';
export {
  evaluateRuns,
  RecordingError,
  failedGates,
  formatEvalTable,
  formatEvalJunit,
  evalGates,
  type EvaluateRunsOptions,
  type EvalChange,
  type EvalGate,
  type EvaluationReport,
  type RunEvaluation,
  type RunSide,
  type Judge,
  type JudgeVerdict,
  type OutputValidity,
  type TotalsSum,
  type Divergence,
  type RunTotals,
  type TurnStep,
  type UnrecordedCall,
  type SubRunEvaluation,
  type MissingSubRun,
  type RecordedIntervention,
} from './eval';
export * from './fake-model';
