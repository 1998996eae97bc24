import type { AgentClient } from '../../client/agent-client';
import { readCandidate } from './candidate-histories';
import type { CandidateTree } from './candidate-tree';
import { firstDivergence } from './compare';
import type { RecordedIntervention } from './human-inputs';
import type { UnrecordedCall } from './recorded-tools';
import type { Recording } from './recording';
import type { MissingSubRun, SubRunEvaluation } from './types';

/** The recorded runs of a recording's tree that were given, each with its call path from the root (the root first, then depth first). */
function given(recording: Recording, path: readonly string[] = []): { recording: Recording; path: readonly string[] }[] {
  return [{ recording, path }, ...recording.children.flatMap((c) => (c.recording ? given(c.recording, [...path, c.path[c.path.length - 1] ?? '']) : []))];
}

/** Turns of the recorded tree (its runs that were given). */
export function recordedTreeTurns(recording: Recording): number {
  return given(recording).reduce((n, r) => n + r.recording.steps.length, 0);
}

/** Recorded sub-agent runs whose histories were not given. */
export function missingSubRuns(recording: Recording): MissingSubRun[] {
  return given(recording).flatMap(({ recording: run, path }) =>
    run.children.flatMap((c) => (c.recording ? [] : [{ workflowId: c.workflowId, agent: c.agent, path: [...path, c.path[c.path.length - 1] ?? ''] }])),
  );
}

/** Operator corrections of the recorded tree, each with the path of the run that got it. */
export function treeInterventions(recording: Recording): RecordedIntervention[] {
  return given(recording).flatMap(({ recording: run, path }) => run.interventions.map((i) => ({ ...i, workflowId: run.workflowId, path })));
}

/** What the candidate's sub-agent runs did, depth first; their turns; and what the recording could not answer them. */
export interface CandidateSubRuns {
  readonly subRuns: SubRunEvaluation[];
  turns: number;
  readonly unrecorded: UnrecordedCall[];
}

/** Reads the candidate's sub-agent runs back (after the candidate ended) and compares each with the recorded run it was answered from. */
export async function candidateSubRuns(agents: AgentClient, tree: CandidateTree, candidate: Recording): Promise<CandidateSubRuns> {
  const out: CandidateSubRuns = { subRuns: [], turns: 0, unrecorded: [] };
  const visit = async (run: Recording): Promise<void> => {
    for (const child of run.children) {
      const [recording, node] = await Promise.all([readCandidate(agents, child.workflowId), tree.node(child.workflowId)]);
      const divergence = node?.recorded ? firstDivergence(node.recorded.steps, recording.steps) : undefined;
      out.subRuns.push({
        agent: child.agent,
        path: node?.path ?? child.path,
        candidateWorkflowId: child.workflowId,
        ...(node?.recordedChild ? { recordedWorkflowId: node.recordedChild.workflowId } : {}),
        ...(node?.recorded ? { source: node.recorded.source } : {}),
        answeredFrom: node?.recorded ? 'recording' : node?.pooled?.length ? 'pooled' : 'none',
        ...(divergence ? { divergence } : {}),
        status: recording.result?.status ?? recording.ending,
        answeredCalls: node?.answers.answered ?? 0,
      });
      out.turns += recording.steps.length;
      if (node) out.unrecorded.push(...node.answers.unrecorded, ...node.humans.unrecorded);
      await visit(recording);
    }
  };
  await visit(candidate);
  return out;
}
