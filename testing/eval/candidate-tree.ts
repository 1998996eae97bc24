import type { RunInput } from '../../contracts';
import type { AgentDefinition } from '../../workflows/agents/agent-registry';
import { RecordedHumans } from './human-harness';
import { canonicalJson, RecordedAnswers } from './recorded-tools';
import type { RecordedChild, Recording } from './recording';

/** A run of a candidate's tree (the candidate, or a sub-agent run it started) and what answers it. */
export interface CandidateNode {
  readonly workflowId: string;
  readonly agent: string;
  /** Call path from the candidate to this run (empty for the candidate). */
  readonly path: readonly string[];
  /** The recorded run it is answered from; absent for a sub-agent run no recorded one matched, or whose recording was not given. */
  readonly recorded?: Recording;
  /** For a sub-agent run: the recorded sub-agent run it stands for, when one had the same input. */
  readonly recordedChild?: RecordedChild;
  /** For a sub-agent run that no recorded one matched: the recorded sub-agent runs (same agent) whose answers were pooled. */
  readonly pooled?: readonly Recording[];
  readonly answers: RecordedAnswers;
  readonly humans: RecordedHumans;
  /** Recorded sub-agent runs not yet matched to one of this run's. */
  readonly unmatched: RecordedChild[];
}

/** What a sub-agent run is asked: a candidate's child and a recorded one are the same run when these are equal. */
function askedKey(input: RunInput): string {
  const { agent, messages, history, plannerOptions, sessionState, confirmation } = input;
  return canonicalJson({ agent, messages, history: history ?? [], plannerOptions, sessionState: sessionState ?? {}, confirmation });
}

/**
 * The runs of the candidates' trees, each with the recorded answers it gets. A candidate is
 * added when it starts; its sub-agent runs are found when they first ask for something: a child
 * is answered from the recorded child its parent's recording started with the same input (agent,
 * messages, planner options, session state); when none had it, from the recorded children of the
 * same agent together; when the matched child's history was not given, every call is "not recorded".
 */
export class CandidateTree {
  private readonly nodes = new Map<string, Promise<CandidateNode | undefined>>();

  /** @param inputOf the input a run of the evaluation's server was started with (undefined: no such run). */
  constructor(
    private readonly agents: readonly AgentDefinition[],
    private readonly inputOf: (workflowId: string) => Promise<RunInput | undefined>,
  ) {}

  /** Adds a candidate, answered from its recording. */
  addRoot(workflowId: string, recording: Recording): CandidateNode {
    const node = this.makeNode(workflowId, recording.input.agent, [], { recorded: recording });
    this.nodes.set(workflowId, Promise.resolve(node));
    return node;
  }

  /** The node of a run of a candidate's tree; undefined for a run that is not part of one. */
  node(workflowId: string): Promise<CandidateNode | undefined> {
    let node = this.nodes.get(workflowId);
    if (!node) {
      node = this.resolveChild(workflowId);
      this.nodes.set(workflowId, node);
    }
    return node;
  }

  private async resolveChild(workflowId: string): Promise<CandidateNode | undefined> {
    const input = await this.inputOf(workflowId);
    const parent = input?.parent ? await this.node(input.parent.workflowId) : undefined;
    if (!input || !parent) return undefined;
    const path = [...parent.path, input.parent!.toolCallId];
    const key = askedKey(input);
    const index = parent.unmatched.findIndex((c) => askedKey(c.input) === key);
    if (index >= 0) {
      const [child] = parent.unmatched.splice(index, 1);
      const noRecording = child!.recording ? undefined : `the recording of sub-agent run ${child!.workflowId} was not given`;
      return this.makeNode(workflowId, input.agent, path, { recordedChild: child!, ...(child!.recording ? { recorded: child!.recording } : {}), ...(noRecording ? { noRecording } : {}) });
    }
    const pooled = (parent.recorded?.children ?? []).flatMap((c) => (c.agent === input.agent && c.recording ? [c.recording] : []));
    return this.makeNode(workflowId, input.agent, path, {
      pooled,
      ...(pooled.length ? {} : { noRecording: `the recording has no sub-agent run of ${input.agent} to answer it from` }),
    });
  }

  private makeNode(
    workflowId: string,
    agentName: string,
    path: readonly string[],
    from: { recorded?: Recording; recordedChild?: RecordedChild; pooled?: readonly Recording[]; noRecording?: string },
  ): CandidateNode {
    const sources = from.recorded ? [from.recorded] : (from.pooled ?? []);
    const agent = this.agents.find((a) => a.name === agentName);
    const normalize = (name: string, args: unknown): unknown => {
      const parsed = agent?.tools.find((t) => t.name === name)?.input.safeParse(args);
      return parsed?.success ? parsed.data : args;
    };
    const where = { ...(path.length ? { path } : {}), ...(from.noRecording ? { noRecording: from.noRecording } : {}) };
    return {
      workflowId,
      agent: agentName,
      path,
      ...(from.recorded ? { recorded: from.recorded } : {}),
      ...(from.recordedChild ? { recordedChild: from.recordedChild } : {}),
      ...(from.pooled ? { pooled: from.pooled } : {}),
      answers: new RecordedAnswers(sources.flatMap((r) => r.toolCalls), normalize, where),
      humans: new RecordedHumans(sources.flatMap((r) => r.decisions), sources.flatMap((r) => r.answers), path),
      unmatched: [...(from.recorded?.children ?? [])],
    };
  }
}
