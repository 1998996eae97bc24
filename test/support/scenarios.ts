import type { AgentClient } from '../../client/agent-client';
import type { RunInput, ToolCall } from '../../contracts';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { callTools, cutOff, paced, say, toolCall, type FakeOpenAIServer } from '../../testing/fake-model';
import { callStep, finalStep, scriptedInput } from './scripts';
import { waitFor } from './wait';

async function waitForStatus(agents: AgentClient, workflowId: string, status: string): Promise<void> {
  await waitFor(`status ${status}`, async () => ((await agents.status(workflowId)).status === status ? true : undefined));
}

async function waitForToolCall(agents: AgentClient, workflowId: string): Promise<void> {
  await waitFor('a tool call', async () => ((await agents.events(workflowId)).events.some((e) => e.type === 'tool_call') ? true : undefined));
}

/** A run whose history is committed under test/histories/ and replayed in CI. */
export interface Scenario {
  readonly name: string;
  readonly input: RunInput;
  /** Scripts the fake OpenAI-compatible server before the run starts (LLM agents). */
  model?(fake: FakeOpenAIServer): void;
  /** Also record the histories of the sub-agent runs it started (`<name>-child-<call id>`). */
  readonly recordChildren?: boolean;
  /** Drives the run from outside (signals, updates) while it runs; awaits nothing by default. */
  drive?(agents: AgentClient, workflowId: string): Promise<void>;
}

const echo = (text: string) => ({ name: 'echo', args: { text } });

/** A tool_calls step of dependency-aware calls. */
const graphStep = (...calls: ToolCall[]): ScriptStep => ({ type: 'tool_calls', calls });

/** A call of the toolbox's `step` tool. */
const step = (id: string, ms: number, more: Partial<ToolCall> & { fail?: boolean } = {}): ToolCall => {
  const { fail, ...rest } = more;
  return { id, name: 'step', args: { label: id, ms, ...(fail ? { fail } : {}) }, ...rest };
};

/** A delegator step: one `delegate` call running the scripted agent with `steps`. */
const delegateStep = (id: string, steps: ScriptStep[]): ScriptStep => ({ type: 'tool_calls', calls: [{ id, name: 'delegate', args: { task: id, steps } as never }] });

/** An await step with a multiple-choice question and a clarification. */
const awaitColourAndCity: ScriptStep = {
  type: 'await',
  await: {
    items: [
      { kind: 'questions', id: 'q', toolCallId: 'ask_1', questions: [{ id: 'color', prompt: 'Colour?', options: [{ id: 'red', label: 'Red' }, { id: 'blue', label: 'Blue' }] }] },
      { kind: 'clarification', id: 'c', question: 'Which city?' },
    ],
  },
};

/** Every scenario captured by `npm run histories`. */
export const scenarios: readonly Scenario[] = [
  {
    name: 'basic',
    input: scriptedInput([callStep(echo('one')), callStep({ name: 'add', args: { a: 1, b: 2 } }), finalStep('basic done')]),
  },
  {
    name: 'parallel-tools',
    input: scriptedInput([callStep(echo('a'), echo('b'), { name: 'sleep', args: { ms: 50 } }), finalStep()]),
  },
  {
    name: 'tool-errors',
    input: scriptedInput([
      callStep({ name: 'fail', args: { message: 'boom' } }, { name: 'teleport', args: {} }, { name: 'add', args: { a: 'x' } }),
      callStep({ name: 'flaky', args: { failAttempts: 1 } }),
      finalStep(),
    ]),
  },
  {
    name: 'iteration-cap',
    input: scriptedInput([callStep(echo('1')), callStep(echo('2')), callStep(echo('3')), finalStep()], { policy: { maxIterations: 2 } }),
  },
  {
    name: 'time-budget',
    input: scriptedInput([callStep({ name: 'sleep', args: { ms: 20_000 } }), finalStep()], { policy: { timeBudgetMs: 1_000 } }),
  },
  {
    name: 'pause-resume',
    input: scriptedInput([callStep(echo('a'), echo('b')), callStep(echo('c')), finalStep()], { breakpoints: [{ point: 'after_tool', once: true }] }),
    async drive(agents, workflowId) {
      await waitForStatus(agents, workflowId, 'paused');
      await agents.signal(workflowId, 'pause', { reason: 42 });
      await agents.resume(workflowId, 'recorded resume');
    },
  },
  {
    name: 'interventions',
    input: scriptedInput([callStep(echo('orig'), echo('drop me'), { name: 'add', args: { a: 1, b: 2 } }), { type: 'final', text: 'ok', reportContext: true }], {
      breakpoints: [{ point: 'after_llm', once: true }],
    }),
    async drive(agents, workflowId) {
      await waitForStatus(agents, workflowId, 'paused');
      await agents.intervene(workflowId, { kind: 'inject_message', role: 'user', content: 'injected' });
      await agents.intervene(workflowId, { kind: 'override_system_prompt', content: 'override' });
      await agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'call_0_0', args: { text: 'edited' } });
      await agents.intervene(workflowId, { kind: 'drop_call', toolCallId: 'call_0_1' });
      await agents.signal(workflowId, 'intervene', { kind: 'block_tool', name: 'add' });
      await agents.setBudget(workflowId, { maxToolCalls: 50 });
      await agents.resume(workflowId);
    },
  },
  {
    name: 'kill',
    input: scriptedInput([callStep(echo('first')), callStep({ name: 'sleep', args: { ms: 600_000 } }, echo('quick')), finalStep()]),
    async drive(agents, workflowId) {
      await waitFor('the sleep call', async () =>
        (await agents.events(workflowId)).events.some((e) => e.type === 'tool_call' && e.name === 'sleep') ? true : undefined,
      );
      await agents.kill(workflowId, { reason: 'recorded kill' });
    },
  },
  {
    name: 'cancel',
    input: scriptedInput([callStep({ name: 'sleep', args: { ms: 600_000 } }), finalStep()]),
    async drive(agents, workflowId) {
      await waitForToolCall(agents, workflowId);
      await agents.client.workflow.getHandle(workflowId).cancel();
    },
  },
  {
    // 0.3.0 patches cancellation-ends-like-kill and tools-stop-before-cancelled.
    name: 'cancel-during-approval',
    input: scriptedInput([callStep({ name: 'sleep', args: { ms: 600_000 } }, echo('needs a yes')), finalStep()], { confirmation: { tools: ['echo'] } }),
    async drive(agents, workflowId) {
      await waitFor('the approval request', async () => (await agents.pendingInputs(workflowId)).approvals[0]);
      await waitForToolCall(agents, workflowId);
      await agents.client.workflow.getHandle(workflowId).cancel();
    },
  },
  {
    // 0.3.0 patch tools-stop-before-cancelled: the call is answered once the tool stopped.
    name: 'kill-lingering-tool',
    input: { ...scriptedInput([callStep({ name: 'linger', args: { stopMs: 300 } }), finalStep()]), agent: 'faulty' },
    async drive(agents, workflowId) {
      await waitForToolCall(agents, workflowId);
      await agents.kill(workflowId, { reason: 'recorded kill of a lingering tool' });
    },
  },
  {
    // 0.3.0 patch await-turns-count.
    name: 'await-cap',
    input: scriptedInput([awaitColourAndCity, awaitColourAndCity, finalStep()], { policy: { maxIterations: 1 } }),
    async drive(agents, workflowId) {
      await waitFor('the await', async () => (await agents.pendingInputs(workflowId)).await);
      await agents.answer(workflowId, { kind: 'questions', itemId: 'q', answers: { color: ['red'] } });
      await agents.answer(workflowId, { kind: 'clarification', itemId: 'c', answer: 'Oslo' });
    },
  },
  {
    // 0.3.0 patch rejections-are-not-failures.
    name: 'human-rejections',
    input: scriptedInput([callStep(echo('one')), callStep(echo('two')), callStep(echo('three')), finalStep()], {
      confirmation: { tools: ['echo'] },
      policy: { maxConsecutiveFailures: 2 },
    }),
    async drive(agents, workflowId) {
      for (const [id, decision] of [['call_0_0', 'reject'], ['call_1_0', 'reject'], ['call_2_0', 'approve']] as const) {
        await waitFor(`approval of ${id}`, async () => ((await agents.pendingInputs(workflowId)).approvals.some((a) => a.toolCallId === id) ? true : undefined));
        await agents.decide(workflowId, decision === 'reject' ? { decision, toolCallId: id, reason: 'no' } : { decision, toolCallId: id });
      }
    },
  },
  {
    name: 'guarded-hooks',
    input: { ...scriptedInput([callStep({ name: 'add', args: { a: -1, b: 1 } }, echo('secret')), { type: 'final', text: 'password inside' }]), agent: 'guarded' },
  },
  {
    name: 'watchlist',
    input: { agent: 'watchlist', messages: [{ role: 'user', content: 'Add AAPL and NVDA to my watchlist' }], sessionState: { watchlist: ['TSLA'] } },
    async drive(agents, workflowId) {
      const approval = await waitFor('the approval request', async () => (await agents.pendingInputs(workflowId)).approvals[0]);
      await agents.decide(workflowId, { decision: 'approve', toolCallId: approval.toolCallId, by: 'recorder' });
    },
  },
  {
    name: 'await-answers',
    input: scriptedInput([
      awaitColourAndCity,
      finalStep(),
    ]),
    async drive(agents, workflowId) {
      await waitFor('the await', async () => (await agents.pendingInputs(workflowId)).await);
      await agents.signal(workflowId, 'answer', { kind: 'questions', itemId: 'q', answers: { color: ['green'] } });
      await agents.answer(workflowId, { kind: 'questions', itemId: 'q', answers: { color: ['blue'] } });
      await agents.answer(workflowId, { kind: 'clarification', itemId: 'c', answer: 'Paris' });
    },
  },
  {
    // Two awaits that bind the same call id (patch unique-await-call-ids): the second becomes ask_1#2.
    name: 'repeated-await-call-id',
    input: scriptedInput(
      (['first', 'second'] as const).map((id): ScriptStep => ({ type: 'await', await: { items: [{ kind: 'clarification', id, toolCallId: 'ask_1', question: `Question ${id}?` }] } })).concat(finalStep()),
      { policy: { maxIterations: 10 } },
    ),
    async drive(agents, workflowId) {
      for (const itemId of ['first', 'second']) {
        await waitFor(`the await ${itemId}`, async () => ((await agents.pendingInputs(workflowId)).await?.items.some((i) => i.id === itemId) ? true : undefined));
        await agents.answer(workflowId, { kind: 'clarification', itemId, answer: `answer to ${itemId}` });
      }
    },
  },
  {
    name: 'approvals',
    input: scriptedInput(
      [callStep(echo('a'), echo('b'), { name: 'add', args: { a: 1, b: 2 } }), finalStep()],
      { confirmation: { all: true } },
    ),
    async drive(agents, workflowId) {
      await waitFor('three approvals', async () => ((await agents.pendingInputs(workflowId)).approvals.length === 3 ? true : undefined));
      await agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0', always: true });
      await agents.decide(workflowId, { decision: 'reject', toolCallId: 'call_0_1', reason: 'no' });
      await agents.decide(workflowId, { decision: 'edit', toolCallId: 'call_0_2', args: { a: 5, b: 5 } });
    },
  },
  {
    name: 'llm-watchlist',
    input: { agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Drop TSLA and quote the rest' }], sessionState: { watchlist: ['TSLA', 'AAPL'] } },
    model(fake) {
      fake.script(
        callTools(toolCall('remove_from_watchlist', { symbols: ['TSLA'] }, 'r1')),
        callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'q1'), toolCall('get_quote', { symbol: 'NOPE!' }, 'q2')),
        say('Removed TSLA. AAPL is quoted.'),
      );
    },
  },
  {
    // 0.11.0: turns of a local tool, which run in the workflow task of the turn before them.
    name: 'local-tools',
    input: { ...scriptedInput([callStep({ name: 'quick', args: { text: 'ab' } }, { name: 'quick', args: { text: 'cd' } }), callStep({ name: 'quick', args: { text: 'ef' } }), finalStep('local done')]), agent: 'faulty' },
  },
  {
    name: 'continue-as-new',
    input: scriptedInput([...Array.from({ length: 30 }, (_, i) => callStep({ name: 'add', args: { a: i, b: 1 } })), finalStep()], {
      policy: { continueAsNewAfterEvents: 100 },
    }),
  },
  {
    // 0.5.0: a dependency-aware plan (a diamond, a failed dependency, an unknown one), then a later turn.
    name: 'call-graph',
    input: scriptedInput([
      graphStep(step('d', 0, { dependsOn: ['b', 'c'] }), step('b', 50, { dependsOn: ['a'] }), step('c', 100, { dependsOn: ['a'] }), step('a', 0), step('bad', 0, { fail: true }), step('after-bad', 0, { dependsOn: ['bad'] }), step('lost', 0, { dependsOn: ['nope'] })),
      callStep(echo('next turn')),
      { type: 'final', text: 'graph done', reportContext: true },
    ]),
  },
  {
    // 0.5.0: alternatives on one output path, one of them waiting for approval when another wins; a later write is refused.
    name: 'alternatives',
    input: scriptedInput([
      graphStep({ id: 'big', name: 'transfer', args: { to: 'acme', amount: 500 }, outputPath: 'paid' }, step('small', 300, { outputPath: 'paid' }), step('slow', 20_000, { outputPath: 'paid' }), step('then', 0, { dependsOn: ['big'] })),
      graphStep(step('again', 0, { outputPath: 'paid' })),
      { type: 'final', text: 'alternatives done', reportContext: true },
    ]),
    async drive(agents, workflowId) {
      // Its event, not the pending approval: 'small' wins the path 300 ms in and withdraws the approval, which a read under load may miss.
      await waitFor('the approval request', async () => ((await agents.events(workflowId)).events.some((e) => e.type === 'approval_requested') ? true : undefined));
    },
  },
  {
    // 0.5.0: at most two tool activities at once.
    name: 'max-concurrent',
    input: scriptedInput([callStep(...['a', 'b', 'c', 'd'].map((label) => ({ name: 'step', args: { label, ms: 50 } }))), finalStep()], { policy: { maxConcurrentToolCalls: 2 } }),
  },
  {
    // 0.5.0: early dispatch: a call starts while the model streams the next one; a retried model call drops an early call.
    name: 'early-dispatch',
    input: { agent: 'toolbox-llm', messages: [{ role: 'user', content: 'two steps' }], policy: { earlyDispatch: true } },
    model(fake) {
      fake.script(
        paced(callTools(toolCall('step', { label: 'a', ms: 100 }, 'call_a'), toolCall('step', { label: 'b', ms: 0 }, 'call_b')), 800),
        cutOff(callTools(toolCall('step', { label: 'x', ms: 3000 }, 'call_x')), 5),
        say('both steps done'),
      );
    },
  },
  {
    // 0.5.0: an agent as a tool: the parent's history (its children are recorded as <name>-child-<call>).
    name: 'sub-agent',
    input: { agent: 'delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps: [delegateStep('d1', [callStep(echo('from the child')), finalStep('child done')]), finalStep('parent done')] } },
    recordChildren: true,
  },
  {
    // 0.5.0: a sub-agent waits for approval when the parent is killed: the child ends like a kill.
    name: 'sub-agent-kill',
    input: { agent: 'delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps: [delegateStep('pay', [callStep({ name: 'transfer', args: { to: 'acme', amount: 900 } }), finalStep()]), finalStep()] } },
    recordChildren: true,
    async drive(agents, workflowId) {
      await waitFor('the child approval', async () => ((await agents.pendingInputsTree(workflowId)).length ? true : undefined));
      await agents.kill(workflowId, { reason: 'stop the tree' });
    },
  },
  {
    // 1.0.0: a sub-agent waits for approval and gets it: it tells its parent when it starts and
    // stops waiting (childWaiting), and the parent's time budget stands still meanwhile.
    name: 'sub-agent-approved',
    input: {
      agent: 'delegator',
      messages: [{ role: 'user', content: 'delegate' }],
      plannerOptions: { steps: [delegateStep('pay', [callStep({ name: 'transfer', args: { to: 'acme', amount: 900 } }), finalStep()]), finalStep()] },
      policy: { timeBudgetMs: 600_000 },
    },
    recordChildren: true,
    async drive(agents, workflowId) {
      await waitFor('the child approval', async () => ((await agents.pendingInputsTree(workflowId)).length ? true : undefined));
      await agents.decideInTree(workflowId, ['pay'], { decision: 'approve', toolCallId: 'call_0_0' });
    },
  },
];

/**
 * Runs captured while still open, then terminated: what a deploy finds in flight. Each must
 * replay on every later workflow version, and continue there (see test/histories/README.md).
 */
export const openScenarios: readonly Scenario[] = [
  {
    name: 'open-paused',
    input: scriptedInput([callStep(echo('a'), echo('b')), callStep(echo('c')), finalStep()], { breakpoints: [{ point: 'after_tool', once: true }] }),
    async drive(agents, workflowId) {
      await waitForStatus(agents, workflowId, 'paused');
      await agents.pause(workflowId, { reason: 'operator pause on top of a breakpoint' });
    },
  },
  {
    name: 'open-awaiting-approval',
    input: scriptedInput([callStep(echo('a'), { name: 'add', args: { a: 1, b: 2 } }), finalStep()], { confirmation: { all: true } }),
    async drive(agents, workflowId) {
      await waitFor('two approvals', async () => ((await agents.pendingInputs(workflowId)).approvals.length === 2 ? true : undefined));
      await agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    },
  },
  {
    name: 'open-awaiting-answers',
    input: scriptedInput([
      awaitColourAndCity,
      finalStep(),
    ]),
    async drive(agents, workflowId) {
      await waitFor('the await', async () => (await agents.pendingInputs(workflowId)).await);
      await agents.answer(workflowId, { kind: 'questions', itemId: 'q', answers: { color: ['blue'] } });
    },
  },
  {
    name: 'open-mid-tool',
    input: scriptedInput([callStep(echo('first')), callStep({ name: 'sleep', args: { ms: 600_000 } }, echo('quick')), finalStep()]),
    async drive(agents, workflowId) {
      await waitFor('the quick call to finish while sleep runs', async () =>
        (await agents.events(workflowId)).events.some((e) => e.type === 'tool_result' && e.toolCallId === 'call_1_1') ? true : undefined,
      );
    },
  },
  {
    name: 'open-watchlist-approval',
    input: { agent: 'watchlist', messages: [{ role: 'user', content: 'Add AAPL and NVDA to my watchlist' }], sessionState: { watchlist: ['TSLA'] } },
    async drive(agents, workflowId) {
      await waitFor('the approval request', async () => (await agents.pendingInputs(workflowId)).approvals[0]);
    },
  },
];
