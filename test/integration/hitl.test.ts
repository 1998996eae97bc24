import { Client, WorkflowFailedError, type WorkflowClientInterceptor } from '@temporalio/client';
import { AgentClient } from '../../client/agent-client';
import type { ApplicationFailure } from '@temporalio/common';
import type { PendingInputs, RunEvent, RunResult } from '../../contracts';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { addAapl, callStep, contextStep, finalStep, observations, scriptedInput, type Observation, watchlistRun } from '../support/scripts';
import { agentSuite } from '../support/agent-suite';
import { waitFor } from '../support/wait';
import { approvalDigest } from '../../contracts/approval-digest';

const suite = agentSuite('hitl');

type View = { instructions: string | null; messages: { role: string; content?: string; toolCallId?: string }[]; outputs: Observation[] };
const view = (result: RunResult): View => result.final?.structured as unknown as View;

async function events(workflowId: string): Promise<RunEvent[]> {
  return (await suite.agents.events(workflowId, 0, 1000)).events;
}

async function approvals(workflowId: string, count: number): Promise<PendingInputs['approvals']> {
  return waitFor(`${count} approval request(s)`, async () => {
    const { approvals: list } = await suite.agents.pendingInputs(workflowId);
    return list.length >= count ? list : undefined;
  });
}

async function openAwait(workflowId: string): Promise<NonNullable<PendingInputs['await']>> {
  return waitFor('an open await', async () => (await suite.agents.pendingInputs(workflowId)).await);
}

describe('seed 003: confirmation with session state', () => {
  it('confirm: the tool runs, session state changes and the next instructions show it', async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([addAapl, contextStep]));
    const [pending] = await approvals(workflowId, 1);
    expect(pending).toMatchObject({ name: 'add_to_watchlist', args: { symbols: ['AAPL'] }, toolCallId: 'call_0_0' });
    expect((await suite.agents.status(workflowId)).status).toBe('awaiting');
    expect((await suite.agents.status(workflowId)).sessionState).toEqual({ watchlist: [] });

    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0', by: 'alice' });
    const result = await suite.agents.result(workflowId);
    expect(result.sessionState).toEqual({ watchlist: ['AAPL'] });
    expect(view(result).instructions).toBe(`You MUST use the add_to_watchlist tool when the user asks to add a stock. The user's watchlist is: ["AAPL"]`);
    expect(view(result).outputs[0]).toMatchObject({ status: 'ok', result: { added: ['AAPL'], watchlist: ['AAPL'] } });
    const decided = (await events(workflowId)).find((e) => e.type === 'approval_decided');
    expect(decided).toMatchObject({ decision: 'approve', by: 'alice' });
  });

  it('a tool that declares its session keys carries only those, not the whole session state', async () => {
    const input = watchlistRun([addAapl, contextStep], ['TSLA']);
    const { workflowId } = await suite.agents.start({ ...input, sessionState: { watchlist: ['TSLA'], notes: 'n'.repeat(50_000) } });
    await approvals(workflowId, 1);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    const result = await suite.agents.result(workflowId);
    expect(result.sessionState).toMatchObject({ watchlist: ['TSLA', 'AAPL'] });
    expect((result.sessionState as { notes: string }).notes).toHaveLength(50_000);
    const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = history.events?.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
    const sent = JSON.parse(Buffer.from(scheduled?.input?.payloads?.[0]?.data ?? []).toString()) as { sessionState: object; sessionKeys: string[] };
    expect(sent).toMatchObject({ sessionState: { watchlist: ['TSLA'] }, sessionKeys: ['watchlist'] });
    expect(Object.keys(sent.sessionState)).toEqual(['watchlist']);
  });

  it('reject: nothing runs, state is unchanged and the planner is told why', async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([addAapl, contextStep], ['TSLA']));
    await approvals(workflowId, 1);
    await suite.agents.decide(workflowId, { decision: 'reject', toolCallId: 'call_0_0', reason: 'not today' });
    const result = await suite.agents.result(workflowId);
    expect(result.sessionState).toEqual({ watchlist: ['TSLA'] });
    expect(view(result).instructions).toContain(`The user's watchlist is: ["TSLA"]`);
    expect(view(result).outputs[0]).toMatchObject({ status: 'error', errorType: 'rejected', errorMessage: 'rejected by a human: not today' });
    const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
  });
});

describe('confirmation of tool calls', () => {
  it('parallel calls are decided independently: approved ones run while others wait', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }, { name: 'echo', args: { text: 'b' } }), finalStep()], { confirmation: { tools: ['echo'] } }),
    );
    const pending = await approvals(workflowId, 2);
    expect(pending.map((p) => p.toolCallId)).toEqual(['call_0_0', 'call_0_1']);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    await waitFor('the approved call to finish', async () =>
      (await events(workflowId)).some((e) => e.type === 'tool_result' && e.toolCallId === 'call_0_0') ? true : undefined,
    );
    const status = await suite.agents.status(workflowId);
    expect(status.status).toBe('awaiting');
    expect((await suite.agents.pendingInputs(workflowId)).approvals.map((a) => a.toolCallId)).toEqual(['call_0_1']);
    await suite.agents.decide(workflowId, { decision: 'reject', toolCallId: 'call_0_1' });
    const result = await suite.agents.result(workflowId);
    expect((result.final?.structured as unknown as Observation[]).map((o) => o.status)).toEqual(['ok', 'error']);
  });

  it('an edited call runs with the edited arguments, and both versions are recorded', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'add', args: { a: 1, b: 2 } }), finalStep()], { confirmation: { all: true } }));
    await approvals(workflowId, 1);
    await expect(suite.agents.decide(workflowId, { decision: 'edit', toolCallId: 'call_0_0', args: { a: 'ten', b: 5 } })).rejects.toMatchObject({
      type: 'rejected',
      message: expect.stringContaining('arguments do not match add: a:'),
    });
    await suite.agents.decide(workflowId, { decision: 'edit', toolCallId: 'call_0_0', args: { a: 10, b: 5 } });
    const result = await suite.agents.result(workflowId);
    expect((result.final?.structured as unknown as Observation[])[0]).toMatchObject({ status: 'ok', result: { sum: 15 } });
    const decided = (await events(workflowId)).find((e) => e.type === 'approval_decided');
    expect(decided).toMatchObject({ decision: 'edit', original: { name: 'add', args: { a: 1, b: 2 } }, updated: { name: 'add', args: { a: 10, b: 5 } } });
  });

  it('a call can be replaced by another', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'x' } }), finalStep()], { confirmation: { all: true } }));
    await approvals(workflowId, 1);
    await suite.agents.decide(workflowId, { decision: 'replace', toolCallId: 'call_0_0', name: 'add', args: { a: 2, b: 2 } });
    const result = await suite.agents.result(workflowId);
    expect((result.final?.structured as unknown as Observation[])[0]).toMatchObject({ toolCallId: 'call_0_0', name: 'add', result: { sum: 4 } });
  });

  it('"always approve this tool" stops asking for it in this run', async () => {
    const echo = callStep({ name: 'echo', args: { text: 'x' } });
    const { workflowId } = await suite.agents.start(scriptedInput([echo, echo, finalStep()], { confirmation: { tools: ['echo'] } }));
    await approvals(workflowId, 1);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0', always: true });
    const result = await suite.agents.result(workflowId);
    expect(result.iterations).toBe(2);
    expect((await events(workflowId)).filter((e) => e.type === 'approval_requested')).toHaveLength(1);
  });

  it('pendingInputs asks a run for its status and its pending inputs at once: one wait for a worker, not two in a row', async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([addAapl, contextStep]));
    await approvals(workflowId, 1);
    // Queries in flight as each one is sent, seen by a real client's interceptor.
    let inFlight = 0;
    const seen: number[] = [];
    const counting: WorkflowClientInterceptor = {
      async query(input, next) {
        seen.push(++inFlight);
        try {
          return await next(input);
        } finally {
          inFlight--;
        }
      },
    };
    const client = new Client({ connection: suite.env.client.connection, namespace: suite.env.namespace ?? 'default', interceptors: { workflow: [counting] } });
    const pending = await new AgentClient(client, suite.taskQueue).pendingInputs(workflowId);
    expect(pending.tree).toEqual([expect.objectContaining({ workflowId, path: [], approvals: [expect.objectContaining({ toolCallId: 'call_0_0' })] })]);
    expect(seen).toEqual([1, 2]);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
  });

  it('a decision is bound to the arguments it was made on (their digest), and applies once: a second is answered already decided, naming who and when', async () => {
    const pay = { text: 'pay acme 500' };
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: pay }), callStep({ name: 'echo', args: { text: 'then wait' } }), finalStep()], { confirmation: { all: true } }));
    const [pending] = await approvals(workflowId, 1);
    const digest = approvalDigest('echo', pay);
    expect(pending).toMatchObject({ toolCallId: 'call_0_0', digest });
    expect((await events(workflowId)).find((e) => e.type === 'approval_requested')).toMatchObject({ toolCallId: 'call_0_0', digest });

    // A decision made on other arguments (a stale screen, a link minted before a re-plan) is refused, naming both digests.
    const other = approvalDigest('echo', { text: 'pay acme 5000' });
    await expect(suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0', by: 'mallory', digest: other })).rejects.toMatchObject({
      type: 'rejected',
      // The run's reason, to match on instead of the message (the approval link page does).
      refusal: 'stale_digest',
      message: `call call_0_0 waits with other arguments than the ones decided on: the decision is for ${other}, the call waiting is ${digest}; read what waits now and decide again`,
    });
    await expect(suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0', digest: 'sha256:nothex' })).rejects.toMatchObject({ type: 'rejected', refusal: 'invalid_payload', message: expect.stringContaining('digest: an approval digest is sha256:') });
    expect((await suite.agents.pendingInputs(workflowId)).approvals.map((a) => a.toolCallId)).toEqual(['call_0_0']);

    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0', by: 'alice', digest });
    await waitFor('the second call to wait', async () => ((await suite.agents.pendingInputs(workflowId)).approvals[0]?.toolCallId === 'call_1_0' ? true : undefined));
    await expect(suite.agents.decide(workflowId, { decision: 'reject', toolCallId: 'call_0_0', by: 'bob', digest })).rejects.toMatchObject({
      type: 'rejected',
      refusal: 'already_decided',
      message: expect.stringMatching(/^call call_0_0 was decided already: approve by alice at \d{4}-\d\d-\d\dT\S+Z$/),
    });
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_1_0' });
    await suite.agents.result(workflowId);
    const decided = (await events(workflowId)).filter((e) => e.type === 'approval_decided');
    expect(decided.map((e) => [e.type === 'approval_decided' && e.toolCallId, e.type === 'approval_decided' && e.by])).toEqual([
      ['call_0_0', 'alice'],
      ['call_1_0', undefined],
    ]);
  });

  it('every kind of decision is bound to the digest it carries: an edit, a replace, a reject and an always made on other arguments are refused naming both digests; made on these, each applies and records its digest', async () => {
    const args = (id: string) => ({ text: `call ${id}` });
    const calls = ['e', 'r', 'j', 'w'].map((id) => ({ id, name: 'echo', args: args(id) }));
    const { workflowId } = await suite.agents.start(scriptedInput([{ type: 'tool_calls', calls } as ScriptStep, callStep({ id: 'later', name: 'echo', args: { text: 'later' } }), contextStep], { confirmation: { tools: ['echo'] } }));
    await approvals(workflowId, 4);
    const stale = approvalDigest('echo', { text: 'what the screen showed' });
    const decisions = [
      { decision: 'edit' as const, toolCallId: 'e', args: { text: 'edited' } },
      { decision: 'replace' as const, toolCallId: 'r', name: 'add', args: { a: 1, b: 2 } },
      { decision: 'reject' as const, toolCallId: 'j', reason: 'no' },
      { decision: 'approve' as const, toolCallId: 'w', always: true },
    ];
    for (const decision of decisions) {
      await expect(suite.agents.decide(workflowId, { ...decision, digest: stale })).rejects.toMatchObject({
        refusal: 'stale_digest',
        message: expect.stringContaining(`the decision is for ${stale}, the call waiting is ${approvalDigest('echo', args(decision.toolCallId))}`),
      });
    }
    expect((await suite.agents.pendingInputs(workflowId)).approvals.map((a) => a.toolCallId)).toEqual(['e', 'r', 'j', 'w']);
    for (const decision of decisions) await suite.agents.decide(workflowId, { ...decision, digest: approvalDigest('echo', args(decision.toolCallId)), by: 'ana' });
    const result = await suite.agents.result(workflowId);
    expect(view(result).outputs.map((o) => [o.toolCallId, o.name, o.status])).toEqual([
      ['e', 'echo', 'ok'],
      ['r', 'add', 'ok'],
      ['j', 'echo', 'error'],
      ['w', 'echo', 'ok'],
      // Approved for good: the next echo asks no one.
      ['later', 'echo', 'ok'],
    ]);
    const log = await events(workflowId);
    expect(log.filter((e) => e.type === 'approval_decided').map((e) => e.type === 'approval_decided' && [e.toolCallId, e.decision, e.digest])).toEqual(
      decisions.map((d) => [d.toolCallId, d.decision, approvalDigest('echo', args(d.toolCallId))]),
    );
    expect(log.filter((e) => e.type === 'approval_requested')).toHaveLength(4);
  });

  it("a call changed before it is confirmed or by a person's decision is ruled on as it will run: an operator's edit into what a rule allows runs unasked, a person's edit or replace into what a rule denies is refused", async () => {
    const rules = {
      version: 'changed-1',
      rules: [
        { id: 'fine', effect: 'allow' as const, tools: ['echo'], args: [{ path: 'text', op: 'eq' as const, value: 'fine' }] },
        { id: 'no-drops', effect: 'deny' as const, tools: ['echo'], args: [{ path: 'text', op: 'eq' as const, value: 'drop table' }], reason: 'destructive' },
        { id: 'no-big-sums', effect: 'deny' as const, tools: ['add'], args: [{ path: 'a', op: 'gte' as const, value: 100 }], reason: 'too big' },
      ],
    };
    const calls = [
      { id: 'op', name: 'echo', args: { text: 'ask me' } },
      { id: 'ed', name: 'echo', args: { text: 'ask me too' } },
      { id: 'rp', name: 'echo', args: { text: 'and me' } },
    ];
    const { workflowId } = await suite.agents.start(scriptedInput([{ type: 'tool_calls', calls } as ScriptStep, contextStep], { confirmation: { tools: ['echo'], rules }, breakpoints: [{ point: 'after_llm', once: true }] }));
    await waitFor('the breakpoint', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    // An operator's edit before the call is confirmed: the rules see the edited arguments, and allow them.
    await suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'op', args: { text: 'fine' } });
    await suite.agents.resume(workflowId);
    expect((await approvals(workflowId, 2)).map((a) => a.toolCallId)).toEqual(['ed', 'rp']);
    // A person's edit and replace: the call as it will run is what a deny rule refuses.
    await suite.agents.decide(workflowId, { decision: 'edit', toolCallId: 'ed', args: { text: 'drop table' }, by: 'ana' });
    await suite.agents.decide(workflowId, { decision: 'replace', toolCallId: 'rp', name: 'add', args: { a: 500, b: 1 }, by: 'ana' });
    const result = await suite.agents.result(workflowId);
    expect(view(result).outputs.map((o) => [o.toolCallId, o.name, o.status, o.errorMessage])).toEqual([
      ['op', 'echo', 'ok', undefined],
      ['ed', 'echo', 'error', 'denied by approval rule no-drops (rules changed-1): destructive'],
      ['rp', 'add', 'error', 'denied by approval rule no-big-sums (rules changed-1): too big'],
    ]);
    const decided = (await events(workflowId)).filter((e) => e.type === 'approval_decided');
    expect(decided.map((e) => e.type === 'approval_decided' && [e.toolCallId, e.decision, e.by])).toEqual([
      ['op', 'approve', 'rules changed-1/fine'],
      ['ed', 'edit', 'ana'],
      ['rp', 'replace', 'ana'],
    ]);
  });

  it('approval rules decide before a person is asked, and their decisions are recorded like a person\'s, naming the rules\' version and the rule', async () => {
    const rules = {
      version: 'echo-rules-1',
      rules: [
        { id: 'fine', effect: 'allow' as const, tools: ['echo'], args: [{ path: 'text', op: 'eq' as const, value: 'fine' }] },
        { id: 'never', effect: 'deny' as const, tools: ['ech*'], args: [{ path: 'text', op: 'in' as const, value: ['rm -rf', 'drop table'] }], reason: 'destructive' },
      ],
    };
    const calls = [
      { id: 'a', name: 'echo', args: { text: 'fine' } },
      { id: 'b', name: 'echo', args: { text: 'drop table' } },
      { id: 'c', name: 'echo', args: { text: 'other' } },
    ];
    const { workflowId } = await suite.agents.start(scriptedInput([{ type: 'tool_calls', calls } as ScriptStep, contextStep], { confirmation: { all: true, rules } }));
    // Only the call no rule decides waits for a person.
    const waiting = await approvals(workflowId, 1);
    expect(waiting.map((a) => a.toolCallId)).toEqual(['c']);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'c', by: 'ana' });
    const result = await suite.agents.result(workflowId);
    const outputs = view(result).outputs;
    expect(outputs.map((o) => [o.toolCallId, o.status, o.errorType])).toEqual([
      ['a', 'ok', undefined],
      ['b', 'error', 'rejected'],
      ['c', 'ok', undefined],
    ]);
    expect(outputs[1]?.errorMessage).toBe('denied by approval rule never (rules echo-rules-1): destructive');
    const decided = (await events(workflowId)).filter((e) => e.type === 'approval_decided');
    expect(decided.map((e) => (e.type === 'approval_decided' ? [e.toolCallId, e.decision, e.by, e.rules] : []))).toEqual([
      ['a', 'approve', 'rules echo-rules-1/fine', { version: 'echo-rules-1', rule: 'fine' }],
      ['b', 'reject', 'rules echo-rules-1/never', { version: 'echo-rules-1', rule: 'never' }],
      ['c', 'approve', 'ana', undefined],
    ]);
    // Bad rules are refused at the start, naming the field.
    await expect(suite.agents.start(scriptedInput([contextStep], { confirmation: { rules: { version: 'x', rules: [{ id: 'r', effect: 'maybe' as never }] } } }))).rejects.toMatchObject({ message: expect.stringContaining('confirmation.rules.rules.0.effect') });
  });

  it('a person\'s "always" for a tool stops its asking, never a deny rule: a later call the rule denies is still refused', async () => {
    const rules = { version: 'deny-1', rules: [{ id: 'never', effect: 'deny' as const, tools: ['echo'], args: [{ path: 'text', op: 'eq' as const, value: 'drop table' }] }] };
    const steps = [callStep({ id: 'a', name: 'echo', args: { text: 'first' } }), callStep({ id: 'b', name: 'echo', args: { text: 'second' } }), callStep({ id: 'c', name: 'echo', args: { text: 'drop table' } }), contextStep];
    const { workflowId } = await suite.agents.start(scriptedInput(steps, { confirmation: { all: true, rules } }));
    await approvals(workflowId, 1);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'a', always: true, by: 'ana' });
    const result = await suite.agents.result(workflowId);
    expect(view(result).outputs.map((o) => [o.toolCallId, o.status, o.errorType])).toEqual([
      ['a', 'ok', undefined],
      ['b', 'ok', undefined],
      ['c', 'error', 'rejected'],
    ]);
    const requested = (await events(workflowId)).filter((e) => e.type === 'approval_requested').map((e) => e.type === 'approval_requested' && e.toolCallId);
    expect(requested).toEqual(['a']);
  });

  it('new approval rules judge the calls that wait for a person again: the ones they decide run or are refused at once, the rest wait on; later calls follow them', async () => {
    const calls = [
      { id: 'a', name: 'echo', args: { text: 'fine' } },
      { id: 'b', name: 'echo', args: { text: 'other' } },
    ];
    const { workflowId } = await suite.agents.start(scriptedInput([{ type: 'tool_calls', calls } as ScriptStep, callStep({ id: 'c', name: 'echo', args: { text: 'fine' } }), contextStep], { confirmation: { all: true } }));
    await approvals(workflowId, 2);
    const run = suite.agents.run(workflowId);
    const still = await run.setApprovalRules({ version: 'v2', rules: [{ id: 'fine', effect: 'allow', tools: ['echo'], args: [{ path: 'text', op: 'eq', value: 'fine' }] }] });
    expect(still.approvals.map((a) => a.toolCallId)).toEqual(['b']);
    await expect(run.setApprovalRules({ version: 'v3', rules: [{ id: 'x', effect: 'sometimes' as never }] })).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining('rules.0.effect') });
    await run.decide({ decision: 'approve', toolCallId: 'b', by: 'ana' });
    // The next turn's call follows the rules the run has now: it does not ask.
    const result = await run.result();
    expect(view(result).outputs.map((o) => [o.toolCallId, o.status])).toEqual([
      ['a', 'ok'],
      ['b', 'ok'],
      ['c', 'ok'],
    ]);
    const log = await events(workflowId);
    expect(log.filter((e) => e.type === 'approval_rules_changed')).toEqual([expect.objectContaining({ version: 'v2', decided: ['a'] })]);
    expect(log.filter((e) => e.type === 'approval_requested').map((e) => e.type === 'approval_requested' && e.toolCallId)).toEqual(['a', 'b']);
    const decided = log.filter((e) => e.type === 'approval_decided');
    expect(decided.map((e) => (e.type === 'approval_decided' ? [e.toolCallId, e.by, e.rules?.rule] : []))).toEqual([
      ['a', 'rules v2/fine', 'fine'],
      ['b', 'ana', undefined],
      ['c', 'rules v2/fine', 'fine'],
    ]);
  });

  it('a judge rule: its evaluator on the worker approves or rejects when sure, and a person is asked when it escalates, is unsure, fails or runs past its time', async () => {
    const rules = { version: 'judged-1', rules: [{ id: 'judge-echo', effect: 'judge' as const, tools: ['echo'], judge: { evaluator: 'by-text', minConfidence: 0.5, timeoutMs: 2_000 } }] };
    const texts = ['ok send', 'no send', 'maybe send', 'unsure send', 'boom send', 'slow send', 'unknown judge'];
    const calls = texts.map((text, i) => ({ id: `j${i}`, name: 'echo', args: { text } }));
    const other = { version: 'judged-1', rules: [{ id: 'judge-other', effect: 'judge' as const, tools: ['echo'], judge: { evaluator: 'nobody' } }] };
    const [judged, unknown] = await Promise.all([
      suite.agents.start(scriptedInput([{ type: 'tool_calls', calls: calls.slice(0, 6) } as ScriptStep, contextStep], { confirmation: { rules } })),
      suite.agents.start(scriptedInput([{ type: 'tool_calls', calls: [calls[6]!] } as ScriptStep, contextStep], { confirmation: { rules: other } })),
    ]);
    // Escalated to a person: unsure, too little confidence, a failing judge, one past its time, and a judge no worker has.
    const waiting = await approvals(judged.workflowId, 4);
    expect(waiting.map((a) => a.toolCallId).sort()).toEqual(['j2', 'j3', 'j4', 'j5']);
    await approvals(unknown.workflowId, 1);
    for (const { toolCallId } of waiting) await suite.agents.decide(judged.workflowId, { decision: 'approve', toolCallId, by: 'ana' });
    await suite.agents.decide(unknown.workflowId, { decision: 'reject', toolCallId: 'j6', by: 'ana' });
    const result = await suite.agents.result(judged.workflowId);
    expect(view(result).outputs.map((o) => [o.toolCallId, o.status, o.errorType])).toEqual([
      ['j0', 'ok', undefined],
      ['j1', 'error', 'rejected'],
      ['j2', 'ok', undefined],
      ['j3', 'ok', undefined],
      ['j4', 'ok', undefined],
      ['j5', 'ok', undefined],
    ]);
    expect(view(result).outputs[1]?.errorMessage).toBe('rejected by judge by-text (approval rule judge-echo, rules judged-1): not allowed');
    const log = await events(judged.workflowId);
    const verdicts = Object.fromEntries(log.flatMap((e) => (e.type === 'approval_judged' ? [[e.toolCallId, [e.verdict, e.escalated, e.why]]] : [])));
    expect(verdicts).toEqual({
      j0: ['approve', false, undefined],
      j1: ['reject', false, undefined],
      j2: ['approve', true, 'the judge is 0.2 sure, below 0.5'],
      j3: ['escalate', true, 'the judge escalated'],
      j4: ['escalate', true, expect.stringContaining('the judge failed: the judge broke')],
      j5: ['escalate', true, expect.stringMatching(/^the judge failed: .*timeout/i)],
    });
    const decidedBy = Object.fromEntries(log.flatMap((e) => (e.type === 'approval_decided' ? [[e.toolCallId, e.by]] : [])));
    expect(decidedBy).toMatchObject({ j0: 'judge by-text (rules judged-1/judge-echo)', j1: 'judge by-text (rules judged-1/judge-echo)', j2: 'ana' });
    const unknownLog = await events(unknown.workflowId);
    expect(unknownLog.find((e) => e.type === 'approval_judged')).toMatchObject({ escalated: true, why: expect.stringContaining('no approval judge "nobody" on this worker; its judges: by-text') });
    await suite.agents.result(unknown.workflowId);
    // A judge rule without its judge is refused at the start, naming the field.
    await expect(suite.agents.start(scriptedInput([contextStep], { confirmation: { rules: { version: 'x', rules: [{ id: 'r', effect: 'judge' }] } } }))).rejects.toMatchObject({ message: expect.stringContaining('confirmation.rules.rules.0.judge') });
  });

  it('a decision for a call that does not wait is rejected', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'x' } }), finalStep()], { confirmation: { all: true } }));
    await approvals(workflowId, 1);
    await expect(suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'nope' })).rejects.toMatchObject({
      message: 'no call nope waits for a decision; waiting: call_0_0',
    });
    await suite.agents.signal(workflowId, 'decide', { decision: 'maybe', toolCallId: 'call_0_0' });
    // A 2,000-character id is echoed cut to 100 characters, in the update's error and in the signal's event.
    const long = `call_${'x'.repeat(1995)}`;
    const echo = /^no call call_x{95}… \(1900 more characters\) waits for a decision; waiting: call_0_0$/;
    await expect(suite.agents.decide(workflowId, { decision: 'approve', toolCallId: long })).rejects.toMatchObject({ type: 'rejected', message: expect.stringMatching(echo) });
    await suite.agents.signal(workflowId, 'decide', { decision: 'approve', toolCallId: long });
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    await suite.agents.result(workflowId);
    const rejected = (await events(workflowId)).filter((e) => e.type === 'signal_rejected');
    expect(rejected).toHaveLength(2);
    expect(rejected[1]).toMatchObject({ signal: 'decide', reason: expect.stringMatching(echo) });
  });

  it('a tool can decide per call, from its arguments, whether a human must confirm', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'transfer', args: { to: 'bob', amount: 50 } }, { name: 'transfer', args: { to: 'eve', amount: 500 } }), finalStep()]),
    );
    const pending = await approvals(workflowId, 1);
    expect(pending.map((p) => p.args)).toEqual([{ to: 'eve', amount: 500 }]);
    await waitFor('the small transfer to run unasked', async () =>
      (await events(workflowId)).some((e) => e.type === 'tool_result' && e.toolCallId === 'call_0_0') ? true : undefined,
    );
    await suite.agents.decide(workflowId, { decision: 'reject', toolCallId: 'call_0_1', reason: 'suspicious' });
    const result = await suite.agents.result(workflowId);
    expect((result.final?.structured as unknown as Observation[]).map((o) => o.status)).toEqual(['ok', 'error']);
  });

  it('waiting for a human does not burn the time budget', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text: 'x' } }), finalStep()], { confirmation: { all: true }, policy: { timeBudgetMs: 2_000 } }),
    );
    await approvals(workflowId, 1);
    await new Promise((r) => setTimeout(r, 2_500));
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    const result = await suite.agents.result(workflowId);
    expect(result.finalizeReason).toBeUndefined();
    expect((result.final?.structured as unknown as Observation[])[0]?.status).toBe('ok');
  });
});

describe('a run driven through its handle', () => {
  it('agents.run(id) reads, pauses, resumes, decides, follows and reads the history of one run', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }), finalStep()], { confirmation: { tools: ['echo'] } }));
    const run = suite.agents.run(workflowId);
    const waiting = await waitFor('the approval request', async () => (await run.pendingInputs()).approvals[0]);
    expect(waiting.toolCallId).toBe('call_0_0');
    expect((await run.status()).status).toBe('awaiting');
    // Errors come through the client's error table: the run's refusal, and a run that does not exist.
    await expect(run.decide({ decision: 'approve', toolCallId: 'nope' })).rejects.toMatchObject({ type: 'rejected', message: 'no call nope waits for a decision; waiting: call_0_0' });
    await expect(suite.agents.run(`${workflowId}-none`).status()).rejects.toMatchObject({ type: 'run_not_found' });

    // The pause answers once the run is paused: at the await, or after the approved call.
    const pausing = run.pause({ reason: 'look first' });
    await run.decide({ decision: 'approve', toolCallId: 'call_0_0' });
    expect(await pausing).toMatchObject({ status: 'paused' });
    expect((await run.status()).status).toBe('paused');
    expect(await run.resume({ reason: 'go on' })).toMatchObject({ status: 'running' });

    const followed: string[] = [];
    for await (const event of run.follow()) followed.push(event.type);
    expect(followed).toEqual(expect.arrayContaining(['approval_requested', 'paused', 'resumed', 'tool_call', 'tool_result', 'final']));
    expect(followed.indexOf('resumed')).toBeGreaterThan(followed.indexOf('paused'));
    expect(observations(await run.result()).map((o) => o.status)).toEqual(['ok']);

    const history = await run.history();
    expect(history.filter((e) => e.kind === 'tool_call')).toHaveLength(1);
    expect(history.filter((e) => e.kind === 'update').map((e) => e.detail)).toEqual(expect.arrayContaining([expect.stringContaining('pauseRun'), expect.stringContaining('resumeRun')]));
    expect(history.at(-1)?.kind).toBe('run_completed');
  });
});

describe('await barriers', () => {
  const questions: ScriptStep = {
    type: 'await',
    await: {
      items: [
        {
          kind: 'questions',
          id: 'prefs',
          questions: [
            { id: 'color', prompt: 'Favourite colour?', options: [{ id: 'red', label: 'Red' }, { id: 'blue', label: 'Blue' }] },
            { id: 'sizes', prompt: 'Sizes?', options: [{ id: 's', label: 'S' }, { id: 'm', label: 'M' }], allowMultiple: true },
          ],
        },
        { kind: 'clarification', id: 'city', question: 'Which city?', missingFields: ['city'] },
      ],
    },
  };

  it('waits once for every item, rejects bad answers and resumes with the answers', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([questions, contextStep]));
    const open = await openAwait(workflowId);
    expect(open.items.map((i) => [i.id, i.answered])).toEqual([
      ['prefs', false],
      ['city', false],
    ]);
    expect((await suite.agents.status(workflowId)).status).toBe('awaiting');

    await expect(suite.agents.answer(workflowId, { kind: 'questions', itemId: 'prefs', answers: { color: ['green'], sizes: ['s'] } })).rejects.toMatchObject({
      type: 'rejected',
      message: 'question "color": unknown option green; options: red, blue',
    });
    await expect(suite.agents.answer(workflowId, { kind: 'questions', itemId: 'prefs', answers: { color: ['red', 'blue'], sizes: ['s'] } })).rejects.toMatchObject({
      message: 'question "color" allows one option, got 2',
    });
    await expect(suite.agents.answer(workflowId, { kind: 'clarification', itemId: 'city', answer: 'Paris' })).rejects.toMatchObject({
      message: 'required fields missing from the answer: city',
    });
    await suite.agents.answer(workflowId, { kind: 'questions', itemId: 'prefs', answers: { color: ['blue'], sizes: ['s', 'm'] } });
    expect((await suite.agents.status(workflowId)).status).toBe('awaiting');
    await suite.agents.answer(workflowId, { kind: 'clarification', itemId: 'city', answer: 'Paris', fields: { city: 'Paris' } });

    const result = await suite.agents.result(workflowId);
    const userMessages = view(result).messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(userMessages).toEqual(['follow the script', 'Favourite colour?: Blue\nSizes?: S, M', 'Answer to "Which city?": Paris {"city":"Paris"}']);
    const log = await events(workflowId);
    expect(log.filter((e) => e.type === 'await_answered')).toHaveLength(2);
    expect(log.find((e) => e.type === 'await_closed')).toMatchObject({ outcome: 'answered' });
  });

  it('a refused answer or intervention echoes a long id cut to 100 characters', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([questions, contextStep]));
    await openAwait(workflowId);
    const long = (prefix: string) => `${prefix}${'x'.repeat(2000 - prefix.length)}`;
    const refusals = [
      suite.agents.answer(workflowId, { kind: 'clarification', itemId: long('item_'), answer: 'Paris' }),
      suite.agents.answer(workflowId, { kind: 'questions', itemId: 'prefs', answers: { color: [long('option_'), long('other_')], sizes: ['s'] } }),
      suite.agents.answer(workflowId, { kind: 'questions', itemId: 'prefs', answers: { color: ['red'], sizes: ['s'], [long('question_')]: ['a'] } }),
      suite.agents.intervene(workflowId, { kind: 'drop_call', toolCallId: long('call_') }),
    ];
    for (const refusal of refusals) {
      const err = await refusal.then(
        () => undefined,
        (e: unknown) => e as { type: string; message: string },
      );
      expect(err).toMatchObject({ type: 'rejected', message: expect.stringMatching(/x… \(\d+ more characters\)/) });
      expect(err?.message.length).toBeLessThan(400);
    }
    await suite.agents.kill(workflowId);
  });

  it('external tool results are validated against the tool schema and close the calls', async () => {
    const external: ScriptStep = {
      type: 'await',
      await: { items: [{ kind: 'external_tools', id: 'quotes', calls: [{ toolCallId: 'ext_1', name: 'get_quote', args: { symbol: 'AAPL' } }] }] },
    };
    const { workflowId } = await suite.agents.start(watchlistRun([external, contextStep]));
    await openAwait(workflowId);
    await expect(suite.agents.answer(workflowId, { kind: 'external_tools', itemId: 'quotes', results: [{ toolCallId: 'ext_1', result: { price: 'high' } }] })).rejects.toMatchObject({
      message: expect.stringContaining('result of ext_1 does not match get_quote'),
    });
    await suite.agents.answer(workflowId, { kind: 'external_tools', itemId: 'quotes', results: [{ toolCallId: 'ext_1', result: { symbol: 'AAPL', price: 1, currency: 'USD' } }] });
    const result = await suite.agents.result(workflowId);
    expect(view(result).outputs).toEqual([expect.objectContaining({ toolCallId: 'ext_1', status: 'ok', result: { symbol: 'AAPL', price: 1, currency: 'USD' } })]);
    // The assistant call and its tool result are both in the transcript.
    expect(view(result).messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(['ext_1']);
  });

  const timed = (onTimeout: 'fail' | 'finalize' | 'proceed'): ScriptStep => ({
    type: 'await',
    await: { items: [{ kind: 'clarification', id: 'q', question: 'Proceed?', defaultAnswer: 'yes', toolCallId: 'ask_1' }], timeoutMs: 1_000, onTimeout },
  });

  it('timeout with proceed: the default answer is used', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([timed('proceed'), contextStep]));
    const result = await suite.agents.result(workflowId);
    expect(view(result).outputs[0]).toMatchObject({ toolCallId: 'ask_1', status: 'ok', result: { answer: 'yes' } });
    expect((await events(workflowId)).find((e) => e.type === 'await_closed')).toMatchObject({ outcome: 'timed_out' });
  });

  it('timeout with finalize: the planner gets its Finalize turn', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([timed('finalize'), contextStep]));
    const result = await suite.agents.result(workflowId);
    expect(result.finalizeReason).toBe('await_timeout');
    expect(result.final?.text).toBe('Stopped early (await_timeout): nobody answered in time.');
  });

  it('timeout with fail: the run fails with await_timeout', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([timed('fail'), contextStep]));
    const err = await suite.agents.result(workflowId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(((err as WorkflowFailedError).cause as ApplicationFailure).type).toBe('await_timeout');
  });

  it('a kill while awaiting closes the asked calls and terminates', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([timed('fail'), contextStep].map((s) => (s.type === 'await' ? { ...s, await: { ...s.await, timeoutMs: 60_000 } } : s))));
    await openAwait(workflowId);
    await suite.agents.kill(workflowId, { reason: 'user left' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('terminated');
    const log = await events(workflowId);
    expect(log.find((e) => e.type === 'tool_result')).toMatchObject({ toolCallId: 'ask_1', status: 'cancelled' });
    expect(log.find((e) => e.type === 'run_terminated')).toMatchObject({ cancelledCalls: ['ask_1'] });
  });
});

describe('awaits and caps', () => {
  it('an await turn counts toward the iteration cap: a planner that keeps asking gets its Finalize turn', async () => {
    const ask: ScriptStep = { type: 'await', await: { items: [{ kind: 'clarification', id: 'city', question: 'Which city?', missingFields: ['city'] }] } };
    const { workflowId } = await suite.agents.start(scriptedInput([ask, ask, ask, finalStep()], { policy: { maxIterations: 1 } }));
    await waitFor('the first await', async () => ((await suite.agents.status(workflowId)).status === 'awaiting' ? true : undefined));
    await suite.agents.answer(workflowId, { kind: 'clarification', itemId: 'city', answer: 'Paris', fields: { city: 'Paris' } });
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', finalizeReason: 'iteration_cap', iterations: 1 });
    const { events } = await suite.agents.events(workflowId, 0, 1000);
    expect(events.filter((e) => e.type === 'await_opened')).toHaveLength(1);
  });

  it('calls a human rejects do not count as tool failures toward the failure cap', async () => {
    const echo = (text: string) => callStep({ name: 'echo', args: { text } });
    const { workflowId } = await suite.agents.start(
      scriptedInput([echo('one'), echo('two'), echo('three'), finalStep()], { confirmation: { tools: ['echo'] }, policy: { maxConsecutiveFailures: 2 } }),
    );
    for (const [id, decision] of [['call_0_0', 'reject'], ['call_1_0', 'reject'], ['call_2_0', 'approve']] as const) {
      await waitFor(`approval of ${id}`, async () => ((await suite.agents.pendingInputs(workflowId)).approvals.some((a) => a.toolCallId === id) ? true : undefined));
      await suite.agents.decide(workflowId, decision === 'reject' ? { decision, toolCallId: id, reason: 'no' } : { decision, toolCallId: id });
    }
    const result = await suite.agents.result(workflowId);
    expect(result.finalizeReason).toBeUndefined();
    expect(result.cost.consecutiveFailures.used).toBe(0);
    expect(observations(result).map((o) => o.status)).toEqual(['error', 'error', 'ok']);
  });

  it('a planner that binds the same call id in two awaits gets unique ids in the transcript', async () => {
    const ask = (id: string): ScriptStep => ({ type: 'await', await: { items: [{ kind: 'clarification', id, toolCallId: 'ask_1', question: `Question ${id}?` }] } });
    const { workflowId } = await suite.agents.start(scriptedInput([ask('first'), ask('second'), contextStep], { policy: { maxIterations: 10 } }));
    for (const itemId of ['first', 'second']) {
      await waitFor(`the await ${itemId}`, async () => ((await suite.agents.pendingInputs(workflowId)).await?.items.some((i) => i.id === itemId) ? true : undefined));
      await suite.agents.answer(workflowId, { kind: 'clarification', itemId, answer: `answer to ${itemId}` });
    }
    const result = await suite.agents.result(workflowId);
    const { messages } = result.final?.structured as unknown as { messages: { role: string; toolCalls?: { id: string }[]; toolCallId?: string }[] };
    expect(messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id))).toEqual(['ask_1', 'ask_1#2']);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(['ask_1', 'ask_1#2']);
  });
});

