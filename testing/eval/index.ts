export { evaluateRuns, type EvaluateRunsOptions } from './evaluate-runs';
export { loadRecordings, type HistorySources } from './load-recordings';
export { readRecording, RecordingError, type Recording, type RecordedToolCall, type RecordedOutcome, type RecordedDecision, type RecordedChild, type TurnStep } from './recording';
export { canonicalJson, type UnrecordedCall } from './recorded-tools';
export { firstDivergence, type Divergence, type RunTotals } from './compare';
export { failedGates } from './summary';
export { formatEvalTable, formatEvalJunit } from './reporters';
export {
  evalGates,
  type EvalGate,
  type EvalChange,
  type EvaluationReport,
  type RunEvaluation,
  type RunSide,
  type Judge,
  type JudgeVerdict,
  type OutputValidity,
  type TotalsSum,
  type SubRunEvaluation,
  type MissingSubRun,
} from './types';
export type { RecordedIntervention } from './human-inputs';
