/**
 * The UI message stream of real runs, read by the real AI SDK (`parseJsonEventStream` with the
 * package's chunk schema, then `readUIMessageStream`) while the runs go on: scripted, rule-planned
 * and model-planned agents, each call approved, rejected or edited, ten rounds. Deltas reach the
 * server over HTTP as a remote worker's do, so they and the events arrive in varying order.
 */
import type { AgentClient } from '../../client/agent-client';
import type { CallDecision, RunInput, RunResult } from '../../contracts';
import type { AgentServer } from '../../server';
import type { FakeOpenAIServer } from '../../testing/fake-model';
import { readWithAiSdk, textParts, toolParts, type UiReadResult } from '../support/ai-ui-reader';
import { liveTokens as tokens, startLiveStack, type LiveStack } from '../support/live-stack';
import { addAapl, finalStep, watchlistRun } from '../support/scripts';
import { waitFor } from '../support/wait';

const answer = 'Done: your watchlist has been updated, and this answer streams in many small pieces.';

let stack: LiveStack;
let fake: FakeOpenAIServer;
let server: AgentServer;
let agents: AgentClient;

beforeAll(async () => {
  // Runs of a round share the fake: it answers by the conversation, not by a script.
  stack = await startLiveStack('ui-stream', answer);
  ({ fake, server } = stack);
  agents = stack.suite.agents;
});

afterAll(() => stack?.close());

type Planner = 'scripted' | 'rules' | 'llm';
type Decision = 'approve' | 'reject' | 'edit';
const edited = { symbols: ['MSFT'] };

const inputs: Record<Planner, RunInput> = {
  scripted: watchlistRun([addAapl, finalStep('added')]),
  rules: { agent: 'watchlist', messages: [{ role: 'user', content: 'Add AAPL to my watchlist' }], sessionState: { watchlist: [] } },
  llm: { agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Add AAPL' }], sessionState: { watchlist: [] } },
};

function decisionFor(decision: Decision, toolCallId: string): CallDecision {
  if (decision === 'reject') return { decision: 'reject', toolCallId, reason: 'not this one' };
  if (decision === 'edit') return { decision: 'edit', toolCallId, args: edited };
  return { decision: 'approve', toolCallId };
}

interface Case {
  planner: Planner;
  decision: Decision;
  workflowId: string;
}

/** Decides the run's call once it waits, and answers which call that was. */
async function decide(c: Case): Promise<string> {
  const approval = await waitFor(`the approval of ${c.workflowId}`, async () => (await agents.pendingInputs(c.workflowId)).approvals[0]);
  await agents.decide(c.workflowId, decisionFor(c.decision, approval.toolCallId));
  return approval.toolCallId;
}

/** What is wrong with one run's stream as the AI SDK read it (nothing, when all is well). */
function problemsOf(c: Case, read: UiReadResult, toolCallId: string, result: RunResult): string[] {
  const problems: string[] = [];
  const fail = (what: string) => problems.push(`${c.planner} ${c.decision} ${c.workflowId}: ${what}`);
  if (read.errors.length > 0) fail(`the reader failed: ${read.errors.join('; ')}`);
  if (result.status !== 'completed') fail(`the run ended ${result.status}`);
  const texts = textParts(read).map((p) => p.text);
  if (texts.length !== 1 || texts[0] !== result.final?.text) fail(`text parts ${JSON.stringify(texts)}, not the one answer ${JSON.stringify(result.final?.text)}`);
  const parts = toolParts(read).filter((p) => p.toolCallId === toolCallId);
  if (parts.length !== 1) fail(`${parts.length} parts for call ${toolCallId}`);
  const first = (type: string) => read.chunks.findIndex((chunk) => chunk.type === type && (chunk.toolCallId === toolCallId || chunk.approvalId === toolCallId));
  if (!(first('tool-input-start') >= 0 && first('tool-input-start') < first('tool-approval-request'))) fail('the approval request came before the call\'s input');
  const call = parts.at(-1);
  if (c.decision === 'reject') {
    if (call?.state !== 'output-denied' || call.approval?.approved !== false) fail(`the rejected call ended ${call?.state}, approval ${JSON.stringify(call?.approval)}`);
    const ofCall = read.chunks.filter((chunk) => chunk.toolCallId === toolCallId || chunk.approvalId === toolCallId).map((chunk) => chunk.type);
    if (ofCall.at(-1) !== 'tool-output-denied') fail(`the rejected call's parts end with ${ofCall.at(-1)}`);
  } else {
    if (call?.state !== 'output-available' || call.approval?.approved !== true) fail(`the ${c.decision === "edit" ? "edited" : "approved"} call ended ${call?.state}, approval ${JSON.stringify(call?.approval)}`);
    if (c.decision === 'edit' && JSON.stringify(call?.input) !== JSON.stringify(edited)) fail(`the edited call shows input ${JSON.stringify(call?.input)}`);
  }
  if (read.chunks.at(-1)?.type !== 'finish') fail(`the stream ended with ${read.chunks.at(-1)?.type}`);
  return problems;
}

describe('UI message stream read by the AI SDK', () => {
  it('reads runs of every planner, approved, rejected or edited, ten times over, without an error, with one text part per answer', async () => {
    const planners: Planner[] = ['scripted', 'rules', 'llm'];
    const decisions: Decision[] = ['approve', 'reject', 'edit'];
    const problems: string[] = [];
    /** Model-planned runs whose answer streamed live (more than one text delta). */
    let streamed = 0;
    for (let round = 0; round < 10; round++) {
      const cases: Case[] = [];
      for (const planner of planners) {
        for (const decision of decisions) {
          const { workflowId } = await agents.start(inputs[planner], { workflowId: `ui-${planner}-${decision}-${round}-${Date.now()}` });
          cases.push({ planner, decision, workflowId });
        }
      }
      const reading = readWithAiSdk(cases.map((c) => ({ url: `${server.url}/api/runs/${c.workflowId}/ui-stream`, headers: { authorization: `Bearer ${tokens.viewer}` } })));
      // Decide only once the reader follows every run: the answers then stream live.
      await reading.connected;
      const toolCallIds = await Promise.all(cases.map(decide));
      const results = await Promise.all(cases.map((c) => agents.result(c.workflowId)));
      const reads = await reading.results;
      cases.forEach((c, i) => problems.push(...problemsOf(c, reads[i] as UiReadResult, toolCallIds[i] as string, results[i] as RunResult)));
      streamed += cases.filter((c, i) => c.planner === 'llm' && (reads[i] as UiReadResult).chunks.filter((chunk) => chunk.type === 'text-delta').length > 1).length;
    }
    expect(problems).toEqual([]);
    // Deltas are best effort, but the answers do stream live (not only as the final event).
    expect(streamed).toBeGreaterThan(0);
    expect(fake.errors).toEqual([]);
  }, 300_000);
});
