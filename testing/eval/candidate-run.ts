import type { AgentClient } from '../../client/agent-client';
import { describeIssues, type RunInput, type RunResult } from '../../contracts';
import type { AgentDefinition } from '../../workflows/agents/agent-registry';
import { isLlmAgent } from '../../workflows/planners/llm/llm-agent';
import { readCandidate } from './candidate-histories';
import type { CandidateNode, CandidateTree } from './candidate-tree';
import { answerFromRecording } from './human-harness';
import type { Recording } from './recording';
import { candidateSubRuns, type CandidateSubRuns } from './tree-report';
import type { EvalChange, OutputValidity } from './types';

/**
 * The candidate's run input: the recorded one, without what tied it to its place (a parent run,
 * a session, a continued execution, breakpoints no one would resume), with the change applied:
 * `plannerOptions.model` for LLM agents, a breakpoint before the first planner turn when
 * the instructions change (the override is applied there), and the approval rules.
 */
export function candidateInput(recorded: RunInput, change: EvalChange, agent: AgentDefinition | undefined): RunInput {
  const rest: RunInput = { ...recorded };
  for (const key of ['continued', 'parent', 'sessionId', 'breakpoints'] as const) delete rest[key];
  const options = recorded.plannerOptions && typeof recorded.plannerOptions === 'object' && !Array.isArray(recorded.plannerOptions) ? recorded.plannerOptions : {};
  return {
    ...rest,
    ...(change.model && isLlmAgent(agent) ? { plannerOptions: { ...options, model: change.model } } : {}),
    ...(change.instructions ? { breakpoints: [{ point: 'before_llm', once: true }] } : {}),
    ...(change.approvalRules ? { confirmation: { ...(recorded.confirmation ?? {}), rules: change.approvalRules } } : {}),
  };
}

/** Whether the final answer matches the agent's output schema (undefined for agents without one). */
export function outputValidity(agent: AgentDefinition | undefined, result: RunResult | undefined): OutputValidity | undefined {
  const schema = isLlmAgent(agent) ? agent.llm.outputSchema?.schema : undefined;
  if (!schema) return undefined;
  if (result?.final?.structured === undefined) return { valid: false, problem: 'the run gave no structured answer' };
  const parsed = schema.safeParse(result.final.structured);
  return parsed.success ? { valid: true } : { valid: false, problem: describeIssues(parsed.error) };
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What a candidate run did. */
export interface CandidateOutcome {
  /** The candidate as its histories record it (all its executions). */
  readonly recording: Recording;
  readonly status: string;
  /** What answered the candidate itself. */
  readonly node: CandidateNode;
  /** Its sub-agent runs. */
  readonly tree: CandidateSubRuns;
}

/**
 * Runs the candidate of one recording to its end on the worker the `tree`'s answers are routed
 * to: starts it, applies the instructions, answers its humans (and its sub-agent runs') from the
 * recording, and reads its histories back as a recording (so both sides are read the same way).
 *
 * @throws Error when the run does not end within `timeoutMs` (it is killed first).
 */
export async function runCandidate(
  agents: AgentClient,
  workflowId: string,
  recording: Recording,
  change: EvalChange,
  agent: AgentDefinition | undefined,
  tree: CandidateTree,
  timeoutMs: number,
): Promise<CandidateOutcome> {
  const node = tree.addRoot(workflowId, recording);
  await agents.start(candidateInput(recording.input, change, agent), { workflowId });
  let ended = false;
  const result = agents.client.workflow
    .getHandle(workflowId)
    .result()
    .then(
      (value: unknown) => (value as RunResult).status as string,
      () => 'failed',
    )
    .finally(() => {
      ended = true;
    });
  if (change.instructions) {
    const instructions = change.instructions;
    await until(async () => ended || (await agents.status(workflowId)).status === 'paused', 30_000, 'the candidate to reach its first planner turn');
    if (!ended) {
      await agents.intervene(workflowId, { kind: 'override_system_prompt', content: instructions });
      await agents.resume(workflowId, 'evaluation: instructions overridden');
    }
  }
  const harness = answerFromRecording(agents, workflowId, async (id) => (await tree.node(id))?.humans, () => ended);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed_out'>((resolveTimeout) => {
    timer = setTimeout(() => resolveTimeout('timed_out'), timeoutMs);
  });
  const status = await Promise.race([result, timedOut]).finally(() => clearTimeout(timer));
  if (status === 'timed_out') {
    await agents.kill(workflowId, { reason: 'evaluation: the candidate did not end in time' }).catch(() => undefined);
    await result;
    const problem = await harness;
    throw new Error(`the candidate run ${workflowId} did not end within ${timeoutMs} ms (killed)${problem ? `; ${problem}` : ''}`);
  }
  await harness;
  const read = await readCandidate(agents, workflowId);
  return { recording: read, status, node, tree: await candidateSubRuns(agents, tree, read) };
}
