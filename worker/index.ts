/**
 * `durable-agents/worker`: the Node side of your agents — tool implementations, the worker
 * plugin that registers them, and a worker factory.
 *
 * @example
 * import { createAgentWorker, implementTool } from 'durable-agents/worker';
 * import { addNote, notesAgent } from './agent';
 * const worker = await createAgentWorker({
 *   workflowsPath: require.resolve('./workflows'), agents: [notesAgent],
 *   tools: [implementTool(addNote, async ({ text }) => ({ saved: text }))],
 * });
 * await worker.run();
 */
export { implementTool, ToolFailure, type ToolContext, type ToolImplementation, type SessionStateAccess } from '../activities';
export { DurableAgentsPlugin, configureAgentBundler, type AgentBundlerOptions, type DurableAgentsPluginOptions } from './plugin';
export { createAgentWorker, bundleAgentWorkflows, type AgentWorkerOptions } from './create-worker';
export { workerConfigFromEnv, type WorkerEnvConfig } from './config-worker';
export { deploymentFromEnv, workerDeploymentOptions, checkDeployment, defaultAgentVersioningBehavior, type AgentDeployment, type AgentVersioningBehavior } from './deployment';
export { createModelActivities, openAIFromEnv, TranscriptCache, HttpDeltaPublisher, deltaPublisherFromEnv, type ModelActivityDependencies, type OpenAIEnv, type DeltaSink, type HttpDeltaPublisherOptions } from '../activities/model';
export type { PriceTable, ModelPrice, ModelCallCost } from '../contracts/pricing';
export { McpClientPool, createMcpActivities, mcpModelTools, idempotencyMetaKey, type McpServerConfig, type ServerToolList } from '../activities/mcp';
export { replayHistoryJson, replayHistoriesJson, explainNondeterminism, type ReplayOutcome, type ReplayBundle } from './replay';
export { forkRun, bundleForkCapture, stateAtTurn, type ForkOptions } from './fork';
export { installTelemetry, tracingFromEnv, prometheusFromEnv, type TelemetryOptions } from './telemetry';
export { workflowTracingModule } from './workflow-sources';
export { activityMetricNames } from './agent-activity-metrics';
export { runMetricNames } from '../workflows/run/run-metrics';
export { approvalLinkKeysFromEnv } from '../config/approval-link-keys';
export type { ApprovalNotifierOptions } from '../activities/approval-notifier';
export type { ApprovalJudge, ApprovalJudgeRequest, ApprovalJudgement } from '../contracts/approval-judge';
export { modelJudge } from '../activities/model-judge';
