/**
 * `durable-agents/client`: start, follow, control and answer agent runs and sessions from
 * your own scripts, services and ops tooling.
 *
 * @example
 * import { AgentClient } from 'durable-agents/client';
 * const agents = await AgentClient.connect({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'notes' });
 * const { workflowId } = await agents.start({ agent: 'notes', messages: [{ role: 'user', content: 'Note: buy milk' }] });
 * for await (const event of agents.run(workflowId).follow()) console.log(event.type);
 */
export { AgentClient, AgentClientError, NoWorkerError, clientOptionsFromEnv, type AgentClientErrorType, type AgentClientConnectOptions, type QueryOptions, type PendingInputsOptions } from './agent-client';
export { RunHandle, type RunOperations } from './run-handle';
export { SessionHandle } from './session-handle';
export { SessionSchedules, SessionScheduleHandle, SessionScheduleError, type SessionScheduleDescription, type SessionScheduleSummary, type ScheduleFiring } from './session-schedules';
export type { SessionScheduleSpec, ParsedSessionScheduleSpec } from './session-schedule-spec';
export { type FollowOptions } from './run-follow';
export { historyEntries, formatHistoryEntry, type HistoryEntry, type HistoryStatus } from './history-view';
export { RunIdTakenError } from '../history/id-reuse';
export { checkpointsOf, rewindRun, CheckpointError, type Checkpoint, type RewindOptions, type CorrectionDelivery } from '../history/checkpoints';
export { type RunRewind } from '../history/rewinds';
export { exportHistory, type ExportedExecution } from './history';
export { workerPresence, type WorkerPresence } from './worker-presence';
export { type StartOptions } from './start-needs-worker';
export { runWorkerVersion, formatWorkerVersion, type RunWorkerVersion } from './worker-version';
export { tenantAccount, setTenantQuota } from './tenant-accounts';
export type { TenantAccountView, PeriodUsage, QuotaHold } from '../contracts/tenant-account';
export type { TenantQuota, TenantDispatch, TenantSettings, TenantsConfig } from '../contracts/tenant-settings';
export { listRuns, listSessions, type RunListEntry, type SessionListEntry, type ListPage, type ListOptions } from './run-list';
export { openSessionFor } from './session-open';
export { formatEvent } from './format';
export { temporalConfigFromEnv, connectionOptions, defaultTaskQueue, type TemporalConfig, type TemporalTlsConfig } from '../config/temporal';
export { EncryptionCodec, encryptionKeysFromEnv, dataConverterFromEnv, type EncryptionKey, type EncryptionKeys } from '../config/encryption';
export { fetchDecodedHistory, decodeHistoryPayloads } from '../history/decoded-history';
export { runTree, recordedRunTree, pendingInputsTree, decideInTree, answerInTree, flattenTree, followTree, resolveTreePath, type RunTree, type TreePendingInputs, type RunPendingInputs, type RecordedRunTree, type TreeEvent } from './run-tree';
export { type TreeRuns, type TreeRun } from './tree-runs';
export { type AgentTracingOptions } from '../config/tracing';
export { tenantsConfigFromEnv } from '../config/tenants-file';
// What runs take and report, as a client script names them. Their schemas and the signal,
// update and query definitions are in `durable-agents/protocol`; the types a planner or a
// tool handles (Message, PlanResult, ToolCall, …) in `durable-agents/workflow`.
export type { RunInput, RunStatus, RunStatusReport, RunResult, ChildRun, CostReport, BudgetLine, ProviderWait } from '../contracts/run';
export type { InputMessage } from '../contracts/messages';
export type { FinalizeReason, Termination } from '../contracts/plan';
export type { RunEvent, RunEventType, EventPage } from '../contracts/events';
export type { AwaitAnswer, CallDecision, ConfirmationPolicy, PendingInputs } from '../contracts/hitl';
export { approvalDigest } from '../contracts/approval-digest';
export type { ApprovalRules, ApprovalRule, ArgumentPredicate } from '../contracts/approval-policy';
export type { Intervention, PauseRequest, ResumeRequest, KillRequest, BudgetChange, PauseResult, InterventionReceipt } from '../contracts/control';
export type { QueueEdit, SessionEvent, SessionInput, SessionMessage, SessionQueueView, SessionReport, SessionRunRecord } from '../contracts/session';
export type { ScheduledMessage, WhenBusyPolicy } from '../contracts/session-schedule';
