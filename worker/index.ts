export { temporalConfigFromEnv, connectionOptions, defaultTaskQueue, type TemporalConfig } from './config';
export { createAgentWorker, buildWorkflowBundle, workflowsPath, type AgentWorkerOptions } from './create-worker';
export { startDevServer, devServerSafetyArgs, searchAttributeArgs, type DevServer, type DevServerOptions } from './dev-server';
export { findTemporalCli, provisionTemporalCli, temporalCliVersion, pinnedTemporalCli, type TemporalCli } from './temporal-cli';
