import type { FinalResponse, JsonValue, RunInput } from '../../contracts';
import type { ApprovalRules } from '../../contracts/approval-policy';
import type { Divergence, RunTotals } from './compare';
import type { RecordedIntervention } from './human-inputs';
import type { UnrecordedCall } from './recorded-tools';
import type { TurnStep } from './recording';

/**
 * The change to evaluate. The candidate's workflows module (and agent definitions) are the
 * other half: an agent or planner version is evaluated by giving its modules.
 */
export interface EvalChange {
  /** Model of LLM agents (their run's `plannerOptions.model`); other agents are left as they are. */
  readonly model?: string;
  /** Instructions that replace the agent's (an `override_system_prompt` intervention before the first planner turn). */
  readonly instructions?: string;
  /**
   * Approval rules the candidate runs under instead of the recorded ones (`confirmation.rules`):
   * how a changed policy would have decided the recorded runs' calls.
   */
  readonly approvalRules?: ApprovalRules;
}

/** One side of a comparison, as a judge sees it. */
export interface RunSide {
  readonly input: RunInput;
  readonly steps: readonly TurnStep[];
  readonly final?: FinalResponse;
  /** completed, terminated, failed, … */
  readonly status: string;
  /** Why the run failed, when it did. */
  readonly failure?: string;
  /** The run's tree: its turns and its sub-agent runs' (those read), its cost report's calls, tokens and cost (which count its sub-agent runs'). */
  readonly totals?: RunTotals;
}

/**
 * A sub-agent run of the candidate (an agent tool's child run), answered from the recorded
 * sub-agent run with the same input (agent, messages, planner options, session state), else
 * from the recorded sub-agent runs of the same agent together (`pooled`), else from nothing.
 */
export interface SubRunEvaluation {
  readonly agent: string;
  /** Call path from the evaluated run (the call that started it last). */
  readonly path: readonly string[];
  readonly candidateWorkflowId: string;
  /** The recorded sub-agent run it stands for, and its file when its history was given. */
  readonly recordedWorkflowId?: string;
  readonly source?: string;
  /** `recording`: the matched recording; `pooled`: no recorded one had its input; `none`: nothing to answer from. */
  readonly answeredFrom: 'recording' | 'pooled' | 'none';
  /** Where it first decided otherwise than the matched recording. */
  readonly divergence?: Divergence;
  /** How it ended: completed, failed, … */
  readonly status: string;
  readonly answeredCalls: number;
}

/** A sub-agent run of the recording whose history was not given: the candidate's counterpart gets "not recorded" answers. */
export interface MissingSubRun {
  readonly workflowId: string;
  readonly agent: string;
  readonly path: readonly string[];
}

/** A judge's verdict on one run. */
export interface JudgeVerdict {
  readonly pass: boolean;
  readonly score?: number;
  readonly reason?: string;
}

/** Your judge: compares the recorded run with the candidate's (e.g. asks a model whether the answers agree). */
export type Judge = (recorded: RunSide, candidate: RunSide) => JudgeVerdict | Promise<JudgeVerdict>;

/** Structured-output check of the candidate's final answer, for agents with an output schema. */
export interface OutputValidity {
  readonly valid: boolean;
  readonly problem?: string;
}

/** The evaluation of one recorded run. */
export interface RunEvaluation {
  /** The recording (file) it came from. */
  readonly source: string;
  readonly agent: string;
  /** Workflow id of the candidate run (on the evaluation's server). */
  readonly candidateWorkflowId: string;
  /** Undefined when the candidate decided every turn as recorded. */
  readonly divergence?: Divergence;
  readonly recorded: RunSide;
  readonly candidate: RunSide;
  /** Whether the final answers are the same (text and structured value). */
  readonly sameFinal: boolean;
  /** Present when the agent has an output schema. */
  readonly output?: OutputValidity;
  /** Calls, approvals and questions of the candidate and its sub-agent runs (with their `path`) that the recording could not answer. */
  readonly unrecorded: readonly UnrecordedCall[];
  /** The candidate's sub-agent runs, depth first. */
  readonly subRuns: readonly SubRunEvaluation[];
  /** Recorded sub-agent runs whose histories were not given (give them with the run's to have them answered). */
  readonly missingSubRuns: readonly MissingSubRun[];
  /** Operator corrections of the recorded run and its sub-agent runs, which the candidate did not get. */
  readonly interventions: readonly RecordedIntervention[];
  /** Tool calls answered from the recording, and run for real (allow-listed). */
  readonly answeredCalls: number;
  readonly liveCalls: number;
  readonly judge?: JudgeVerdict;
  /** Why the candidate could not be run at all (then the rest says little). */
  readonly error?: string;
}

/** Sums of the runs' totals (runs without totals are left out and counted). */
export interface TotalsSum {
  readonly runs: number;
  readonly turns: number;
  readonly toolCalls: number;
  readonly modelCalls: number;
  readonly tokens: number;
  /** Per currency. */
  readonly cost: Readonly<Record<string, number>>;
}

/** What {@link evaluateRuns} returns. */
export interface EvaluationReport {
  readonly runs: readonly RunEvaluation[];
  readonly totals: {
    readonly runs: number;
    readonly diverged: number;
    readonly toolChoiceDivergences: number;
    readonly argumentDivergences: number;
    readonly unrecordedCalls: number;
    readonly sameFinal: number;
    readonly invalidOutputs: number;
    readonly judged: number;
    readonly judgePassed: number;
    readonly errors: number;
    readonly recorded: TotalsSum;
    readonly candidate: TotalsSum;
  };
  /** The change evaluated, as given. */
  readonly change: EvalChange & { readonly agentModule?: string };
}

/** Gates CI can fail on (see {@link failedGates}). */
export const evalGates = ['no-divergence', 'no-tool-divergence', 'no-unrecorded-calls', 'judge', 'valid-output', 'no-errors'] as const;
export type EvalGate = (typeof evalGates)[number];

export type { JsonValue };
