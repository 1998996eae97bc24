import { randomBytes } from 'node:crypto';
import type { RunEvent, RunInput } from '../../contracts';
import { approvalDigest } from '../../contracts/approval-digest';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { replayHistoryJson } from '../../worker/replay';
import { startAgentServer } from '../../server';
import { agentSuite } from '../support/agent-suite';
import { SseClient } from '../support/sse-client';
import { workflowBundleOption } from '../support/test-env';
import { waitFor } from '../support/wait';

const suite = agentSuite('sub-agents');

function delegatorRun(steps: ScriptStep[], extra: Partial<RunInput> = {}): RunInput {
  return { agent: 'delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps }, ...extra };
}

function delegate(id: string, task: string, steps: ScriptStep[]): ScriptStep {
  return { type: 'tool_calls', calls: [{ id, name: 'delegate', args: { task, steps } as never }] };
}

const childScript = (...calls: { name: string; args: unknown }[]): ScriptStep[] => [
  { type: 'tool_calls', calls: calls.map((c) => ({ ...c, args: c.args as never })) },
  { type: 'final', text: 'child done', reportObservations: true },
];

function pending0(json: { pending: { workflowId: string }[] }): string {
  return json.pending[0]!.workflowId;
}

const done: ScriptStep = { type: 'final', text: 'parent done', reportObservations: true };

describe('agents as tools (sub-agent child workflows) on a real dev server', () => {
  it('runs the sub-agent as a child workflow with an id from the parent run and the call, and answers with its final', async () => {
    const { workflowId, runId } = await suite.agents.start(delegatorRun([delegate('d1', 'say hi', childScript({ name: 'echo', args: { text: 'hi' } })), done]));
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');
    const childId = `sub-${runId}/d1`;
    const [call] = result.final?.structured as unknown as { toolCallId: string; status: string; result: { workflowId: string; status: string; text: string; structured: unknown } }[];
    expect(call).toMatchObject({ toolCallId: 'd1', status: 'ok', result: { agent: 'scripted', workflowId: childId, status: 'completed', text: 'child done' } });
    expect(call?.result.structured).toEqual([{ toolCallId: 'call_0_0', name: 'echo', status: 'ok', result: { text: 'hi' } }]);
    // The child's usage is counted in the parent: its own call plus the child's one.
    expect(result.cost.toolCalls.used).toBe(2);
    const child = await suite.env.client.workflow.getHandle(childId).describe();
    expect(child.parentExecution?.workflowId).toBe(workflowId);
    const tree = await suite.agents.tree(workflowId);
    expect(tree).toMatchObject({ workflowId, agent: 'delegator', status: 'completed', path: [], children: [{ workflowId: childId, agent: 'scripted', status: 'completed', path: ['d1'], toolCallId: 'd1', children: [] }] });
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(events.filter((e) => e.type === 'child_started' || e.type === 'child_ended').map((e) => e.type)).toEqual(['child_started', 'child_ended']);
    const replay = await replayHistoryJson(JSON.parse(await suite.agents.exportHistory(workflowId)), await workflowBundleOption());
    expect(replay).toMatchObject({ ok: true });
  });

  it('lists a sub-agent approval at the parent and routes the decision to the child that owns it', async () => {
    const { workflowId } = await suite.agents.start(delegatorRun([delegate('pay', 'pay acme', childScript({ name: 'transfer', args: { to: 'acme', amount: 500 } })), done]));
    const pending = await waitFor('the child approval', async () => {
      const all = await suite.agents.pendingInputsTree(workflowId);
      return all.length ? all : undefined;
    });
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ path: ['pay'], approvals: [{ toolCallId: 'call_0_0', name: 'transfer', args: { to: 'acme', amount: 500 } }] });
    expect(pending[0]?.workflowId).toMatch(/^sub-.+\/pay$/);
    // No wall-clock limit by default: a child that waits for a person waits as long as it takes
    // (its time budget counts its work); with the old 1-hour default it was ended mid-approval.
    const child = await suite.env.client.workflow.getHandle(pending[0]!.workflowId).describe();
    expect(child.raw.executionConfig?.workflowExecutionTimeout ?? null).toBeNull();
    await suite.agents.decideInTree(workflowId, ['pay'], { decision: 'approve', toolCallId: 'call_0_0', by: 'ops' });
    const result = await suite.agents.result(workflowId);
    const [call] = result.final?.structured as unknown as { result: { status: string; structured: { status: string }[] } }[];
    expect(call?.result.status).toBe('completed');
    expect(call?.result.structured[0]?.status).toBe('ok');
    await expect(suite.agents.decideInTree(workflowId, ['nope'], { decision: 'approve', toolCallId: 'x' })).rejects.toThrow('has no sub-agent run for call nope');
  });

  it('lists and answers sub-agent approvals over HTTP, at the root run', async () => {
    const server = await startAgentServer({ agents: suite.agents, auth: { localDev: false, tokens: [{ name: 'olivia', role: 'operator', token: 'operator-token-0123456789' }] } });
    try {
      interface TreeJson {
        runs: { path: string[]; agent: string; toolCallId?: string; startTime?: string; closeTime?: string }[];
        pending: { workflowId: string; path: string[]; approvals: unknown[] }[];
        error: { message: string };
      }
      const call = async (path: string, body?: unknown): Promise<{ status: number; json: TreeJson }> => {
        const response = await fetch(`${server.url}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: 'Bearer operator-token-0123456789', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, json: (await response.json()) as TreeJson };
      };
      const { workflowId } = await suite.agents.start(delegatorRun([delegate('pay', 'pay', childScript({ name: 'transfer', args: { to: 'acme', amount: 700 } })), done]));
      const tree = await waitFor('the child approval over HTTP', async () => {
        const r = await call(`/api/runs/${workflowId}/tree`);
        return r.json.pending?.length ? r : undefined;
      });
      expect(tree.status).toBe(200);
      expect(tree.json.runs.map((r) => [r.path.join('/'), r.agent])).toEqual([
        ['', 'delegator'],
        ['pay', 'scripted'],
      ]);
      expect(tree.json.pending[0]).toMatchObject({ path: ['pay'], approvals: [{ toolCallId: 'call_0_0', name: 'transfer' }] });
      // Each run with the call that started it and when it started; open runs have no close time.
      expect(tree.json.runs[1]).toMatchObject({ toolCallId: 'pay', startTime: expect.stringMatching(/^\d{4}-/) });
      expect(tree.json.runs.map((r) => r.closeTime)).toEqual([undefined, undefined]);
      const bad = await call(`/api/runs/${workflowId}/tree/decisions`, { path: [], decision: { decision: 'approve', toolCallId: 'call_0_0' } });
      expect(bad.status).toBe(400);
      expect(bad.json.error.message).toContain('path');
      const live = new SseClient(`${server.url}/api/runs/${workflowId}/tree/events`, { authorization: 'Bearer operator-token-0123456789', accept: 'text/event-stream' });
      const decided = await call(`/api/runs/${workflowId}/tree/decisions`, { path: ['pay'], decision: { decision: 'approve', toolCallId: 'call_0_0' } });
      expect(decided.status).toBe(200);
      expect((await suite.agents.result(workflowId)).status).toBe('completed');
      // One SSE stream carries the whole tree, each event with its run's path, and ends with the tree.
      await live.done;
      const frames = live.messages.filter((m) => m.event === 'run-event').map((m) => JSON.parse(m.data) as { path: string[]; event: RunEvent });
      expect(frames.filter((f) => f.path.join('/') === 'pay').map((f) => f.event.type)).toEqual(expect.arrayContaining(['run_started', 'approval_requested', 'approval_decided', 'final']));
      expect(frames.filter((f) => f.path.length === 0).map((f) => f.event.type)).toEqual(expect.arrayContaining(['child_started', 'child_ended', 'final']));
      expect(live.messages.at(-1)?.event).toBe('end');
      const events = (await suite.agents.events(pending0(tree.json), 0, 200)).events;
      expect(events.find((e) => e.type === 'approval_decided')).toMatchObject({ by: 'olivia' });
    } finally {
      await server.close();
    }
  });

  it("a sub-agent run decides its calls under its parent's confirmation: the parent's rules deny, its tools ask, each digest is answered through the tree and a link minted for the child's call decides it there", async () => {
    const rules = { version: 'tree-1', rules: [{ id: 'no-drops', effect: 'deny' as const, tools: ['echo'], args: [{ path: 'text', op: 'eq' as const, value: 'drop table' }], reason: 'destructive' }] };
    const asked = { text: 'ask me' };
    const linked = { text: 'link me' };
    const { workflowId } = await suite.agents.start(
      delegatorRun([delegate('d', 'echo three', childScript({ name: 'echo', args: asked }, { name: 'echo', args: linked }, { name: 'echo', args: { text: 'drop table' } })), done], {
        confirmation: { tools: ['echo'], rules },
      }),
    );
    const [waiting] = await waitFor('the child approvals', async () => {
      const all = await suite.agents.pendingInputsTree(workflowId);
      return all[0]?.approvals.length === 2 ? all : undefined;
    });
    expect(waiting).toMatchObject({
      path: ['d'],
      approvals: [
        { toolCallId: 'call_0_0', args: asked, digest: approvalDigest('echo', asked) },
        { toolCallId: 'call_0_1', args: linked, digest: approvalDigest('echo', linked) },
      ],
    });
    const childId = waiting!.workflowId;
    // Through the tree, a decision bound to other arguments is refused by the child, naming both digests.
    const other = approvalDigest('echo', { text: 'something else' });
    await expect(suite.agents.decideInTree(workflowId, ['d'], { decision: 'approve', toolCallId: 'call_0_0', digest: other })).rejects.toMatchObject({
      refusal: 'stale_digest',
      message: expect.stringContaining(`the decision is for ${other}, the call waiting is ${approvalDigest('echo', asked)}`),
    });
    await suite.agents.decideInTree(workflowId, ['d'], { decision: 'approve', toolCallId: 'call_0_0', digest: approvalDigest('echo', asked), by: 'ops' });

    const server = await startAgentServer({ agents: suite.agents, auth: { tokens: [], localDev: true }, approvalLinks: { keys: [{ id: 'tree-links', key: randomBytes(32) }] } });
    try {
      const minted = await fetch(`${server.url}/api/runs/${encodeURIComponent(childId)}/approval-links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ toolCallId: 'call_0_1', approver: { names: ['ana'] } }),
      });
      expect(minted.status).toBe(201);
      const link = (await minted.json()) as { url: string; digest: string };
      expect(link.digest).toBe(approvalDigest('echo', linked));
      const page = await (await fetch(link.url)).text();
      expect(page).toContain(childId);
      const answered = await fetch(link.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ action: 'approve' }).toString() });
      expect(answered.status).toBe(200);
    } finally {
      await server.close();
    }
    const result = await suite.agents.result(workflowId);
    const [call] = result.final?.structured as unknown as { result: { status: string; structured: { toolCallId: string; status: string; errorMessage?: string }[] } }[];
    expect(call?.result.structured.map((o) => [o.toolCallId, o.status, o.errorMessage])).toEqual([
      ['call_0_0', 'ok', undefined],
      ['call_0_1', 'ok', undefined],
      ['call_0_2', 'error', 'denied by approval rule no-drops (rules tree-1): destructive'],
    ]);
    const decided = (await suite.agents.events(childId, 0, 200)).events.filter((e) => e.type === 'approval_decided');
    expect(decided.map((e) => (e.type === 'approval_decided' ? [e.toolCallId, e.decision, e.by, e.digest] : []))).toEqual([
      ['call_0_2', 'reject', 'rules tree-1/no-drops', undefined],
      ['call_0_0', 'approve', 'ops', approvalDigest('echo', asked)],
      ['call_0_1', 'approve', 'ana', approvalDigest('echo', linked)],
    ]);
  });

  it("a sub-agent run's calls are judged by the judge rule it inherits from its parent: sure verdicts decide there, an escalation is asked of a person through the tree", async () => {
    const rules = { version: 'judged-tree', rules: [{ id: 'judge-echo', effect: 'judge' as const, tools: ['echo'], judge: { evaluator: 'by-text' } }] };
    const { workflowId } = await suite.agents.start(
      delegatorRun([delegate('d', 'echo three', childScript({ name: 'echo', args: { text: 'ok send' } }, { name: 'echo', args: { text: 'no send' } }, { name: 'echo', args: { text: 'unsure send' } })), done], {
        confirmation: { tools: ['echo'], rules },
      }),
    );
    // Only the call its judge escalated waits, at the child, under the parent's tree.
    const [waiting] = await waitFor('the escalated call', async () => {
      const all = await suite.agents.pendingInputsTree(workflowId);
      return all[0]?.approvals.length === 1 ? all : undefined;
    });
    expect(waiting).toMatchObject({ path: ['d'], approvals: [{ toolCallId: 'call_0_2', args: { text: 'unsure send' } }] });
    await suite.agents.decideInTree(workflowId, ['d'], { decision: 'approve', toolCallId: 'call_0_2', by: 'ops' });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'parent done' } });
    const childLog = (await suite.agents.events(waiting!.workflowId, 0, 200)).events;
    expect(childLog.filter((e) => e.type === 'approval_judged').map((e) => e.type === 'approval_judged' && [e.toolCallId, e.evaluator, e.verdict, e.escalated])).toEqual([
      ['call_0_0', 'by-text', 'approve', false],
      ['call_0_1', 'by-text', 'reject', false],
      ['call_0_2', 'by-text', 'escalate', true],
    ]);
    expect(childLog.filter((e) => e.type === 'approval_decided').map((e) => e.type === 'approval_decided' && [e.toolCallId, e.decision, e.by])).toEqual([
      ['call_0_0', 'approve', 'judge by-text (rules judged-tree/judge-echo)'],
      ['call_0_1', 'reject', 'judge by-text (rules judged-tree/judge-echo)'],
      ['call_0_2', 'approve', 'ops'],
    ]);
  });

  it("a parent's new approval rules reach its open sub-agent runs at every depth, which judge their waiting calls again under them", async () => {
    const small = { text: 'small' };
    const big = { text: 'big' };
    const middleSteps = [delegate('leaf', 'echo two', childScript({ name: 'echo', args: small }, { name: 'echo', args: big })), { type: 'final', text: 'middle done' }] as ScriptStep[];
    const { workflowId } = await suite.agents.start({
      agent: 'nested-delegator',
      messages: [{ role: 'user', content: 'delegate twice' }],
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ id: 'mid', name: 'delegate_to_delegator', args: { task: 'echo through me', steps: middleSteps } as never }] }, done] },
      confirmation: { tools: ['echo'] },
    });
    const [leaf] = await waitFor('the grandchild approvals', async () => {
      const all = await suite.agents.pendingInputsTree(workflowId);
      return all[0]?.path.join('/') === 'mid/leaf' && all[0].approvals.length === 2 ? all : undefined;
    });
    const rules = {
      version: 'tree-2',
      rules: [
        { id: 'small', effect: 'allow' as const, tools: ['echo'], args: [{ path: 'text', op: 'eq' as const, value: 'small' }] },
        { id: 'big', effect: 'deny' as const, tools: ['echo'], args: [{ path: 'text', op: 'eq' as const, value: 'big' }], reason: 'too big' },
      ],
    };
    // Nothing waits at the top: the rules go down the tree, and the grandchild decides both its calls under them.
    expect(await suite.agents.setApprovalRules(workflowId, rules)).toEqual({ approvals: [] });
    const changed = async (id: string) => (await suite.agents.events(id, 0, 200)).events.filter((e) => e.type === 'approval_rules_changed');
    await waitFor('the rules at the grandchild', async () => ((await changed(leaf!.workflowId)).length > 0 ? true : undefined));
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'parent done' } });
    const middleId = (await suite.agents.tree(workflowId)).children[0]!.workflowId;
    expect(await changed(workflowId)).toEqual([expect.objectContaining({ version: 'tree-2', decided: [], children: [middleId] })]);
    expect(await changed(middleId)).toEqual([expect.objectContaining({ version: 'tree-2', decided: [], children: [leaf!.workflowId] })]);
    expect(await changed(leaf!.workflowId)).toEqual([expect.objectContaining({ version: 'tree-2', decided: ['call_0_0', 'call_0_1'] })]);
    const leafResult = await suite.agents.result(leaf!.workflowId);
    expect((leafResult.final?.structured as unknown as { toolCallId: string; status: string; errorMessage?: string }[]).map((o) => [o.toolCallId, o.status, o.errorMessage])).toEqual([
      ['call_0_0', 'ok', undefined],
      ['call_0_1', 'error', 'denied by approval rule big (rules tree-2): too big'],
    ]);
  });

  it('follows the whole tree: child events come with their path', async () => {
    const { workflowId } = await suite.agents.start(delegatorRun([delegate('d1', 'nested', childScript({ name: 'echo', args: { text: 'deep' } })), done]));
    const seen: { path: string; type: RunEvent['type'] }[] = [];
    for await (const e of suite.agents.followTree(workflowId)) seen.push({ path: e.path.join('/'), type: e.event.type });
    expect(seen.filter((e) => e.path === 'd1').map((e) => e.type)).toEqual(expect.arrayContaining(['run_started', 'tool_call', 'tool_result', 'final']));
    expect(seen.filter((e) => e.path === '').map((e) => e.type)).toEqual(expect.arrayContaining(['child_started', 'child_ended', 'final']));
  });

  it('passes pause and resume on to a running sub-agent', async () => {
    const { workflowId } = await suite.agents.start(
      delegatorRun([delegate('d1', 'slow', [...childScript({ name: 'sleep', args: { ms: 1500 } }).slice(0, 1), { type: 'tool_calls', calls: [{ name: 'echo', args: { text: 'after' } }] }, { type: 'final', text: 'child done' }]), done]),
    );
    const tree = await waitFor('the child', async () => ((await suite.agents.tree(workflowId)).children[0] ? await suite.agents.tree(workflowId) : undefined));
    const childId = tree.children[0]!.workflowId;
    // The parent holds its next safe point until the call ends; the signal does not wait for that.
    await suite.env.client.workflow.getHandle(workflowId).signal('pause', { reason: 'inspect' });
    await waitFor('the child to pause', async () => ((await suite.agents.status(childId)).status === 'paused' ? true : undefined));
    expect((await suite.agents.status(childId)).pauseReason).toBe('parent paused: inspect');
    await suite.agents.resume(workflowId);
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
    expect((await suite.agents.result(childId)).status).toBe('completed');
  });

  it('a kill of the parent ends the sub-agent like a kill, and the call is answered cancelled', async () => {
    const { workflowId } = await suite.agents.start(delegatorRun([delegate('pay', 'pay', childScript({ name: 'transfer', args: { to: 'acme', amount: 900 } })), done]));
    const pending = await waitFor('the child approval', async () => {
      const all = await suite.agents.pendingInputsTree(workflowId);
      return all.length ? all : undefined;
    });
    await suite.agents.kill(workflowId, { reason: 'stop everything' });
    expect((await suite.agents.result(workflowId)).status).toBe('terminated');
    const child = await suite.agents.result(pending[0]!.workflowId);
    expect(child.status).toBe('terminated');
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ toolCallId: 'pay', status: 'cancelled' });
    expect(events.find((e) => e.type === 'child_ended')).toMatchObject({ status: 'terminated' });
  });

  it('passes the parent\'s breakpoints down: the child holds at the same safe point', async () => {
    const { workflowId } = await suite.agents.start(
      delegatorRun([delegate('d1', 'echo', childScript({ name: 'echo', args: { text: 'x' } })), done], { breakpoints: [{ point: 'before_tool', tool: 'echo', once: false }] }),
    );
    const child = await waitFor('the child to pause at its breakpoint', async () => {
      const tree = await suite.agents.tree(workflowId);
      const id = tree.children[0]?.workflowId;
      return id && (await suite.agents.status(id)).status === 'paused' ? id : undefined;
    });
    expect((await suite.agents.status(child)).pausedAt).toMatchObject({ point: 'before_tool' });
    await suite.agents.resume(child);
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
  });

  it('a rewound parent starts new children; the children of the discarded branch end like a kill', async () => {
    const { workflowId } = await suite.agents.start(delegatorRun([delegate('pay', 'pay', childScript({ name: 'transfer', args: { to: 'acme', amount: 300 } })), done]));
    const [first] = await waitFor('the child approval', async () => {
      const all = await suite.agents.pendingInputsTree(workflowId);
      return all.length ? all : undefined;
    });
    await suite.agents.rewind(workflowId, { toTurn: 0, reason: 'try again' });
    expect((await suite.agents.result(first!.workflowId)).status).toBe('terminated');
    const [second] = await waitFor('the new child approval', async () => {
      const all = await suite.agents.pendingInputsTree(workflowId);
      return all.length && all[0]!.workflowId !== first!.workflowId ? all : undefined;
    });
    expect(second!.path).toEqual(['pay']);
    await suite.agents.decideInTree(workflowId, ['pay'], { decision: 'approve', toolCallId: 'call_0_0' });
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
    expect((await suite.agents.tree(workflowId)).children.map((c) => c.workflowId)).toEqual([second!.workflowId]);
  });

  it('keeps a sub-agent answer over the result budget out of the parent\'s payloads, as a tool result', async () => {
    const { workflowId } = await suite.agents.start(
      delegatorRun([delegate('d1', 'big', childScript({ name: 'blob', args: { bytes: 200 } })), done], { policy: { toolResultByteBudget: 100 } }),
    );
    const result = await suite.agents.result(workflowId);
    const [call] = result.final?.structured as unknown as { status: string; resultOmitted?: boolean; result?: unknown }[];
    expect(call).toMatchObject({ status: 'ok', resultOmitted: true });
    expect(call?.result).toBeUndefined();
  });

  it('gives the sub-agent no more than its allowance and what the parent has left', async () => {
    const { workflowId } = await suite.agents.start(
      delegatorRun([delegate('d1', 'count', childScript({ name: 'echo', args: { text: 'x' } })), done], { policy: { maxToolCalls: 4 } }),
    );
    await suite.agents.result(workflowId);
    const tree = await suite.agents.tree(workflowId);
    const child = await suite.agents.result(tree.children[0]!.workflowId);
    // Parent cap 4, 1 used by the delegate call itself... the allowance (10) is larger: the child gets what is left.
    expect(child.cost.toolCalls.max).toBe(4);
  });
});

describe('a sub-agent waiting for a person is waiting for its parents too', () => {
  /** Waits until the tree's only open approval is the one at `path`; returns its run's id. */
  async function approvalAt(rootId: string, path: string[]): Promise<string> {
    return waitFor(`the approval at ${path.join('/')}`, async () => {
      const [first] = await suite.agents.pendingInputsTree(rootId);
      return first && first.path.join('/') === path.join('/') && first.approvals.length === 1 ? first.workflowId : undefined;
    });
  }

  /** Longer than the parents' whole time budget (2 s): waiting for a person does not count. */
  const pastTheBudget = (): Promise<void> => new Promise((r) => setTimeout(r, 3_000));

  it('a parent whose child waits for an approval longer than the parent\'s time budget goes on once it is given', async () => {
    const { workflowId } = await suite.agents.start(
      delegatorRun([delegate('pay', 'pay', childScript({ name: 'transfer', args: { to: 'acme', amount: 500 } })), done], { policy: { timeBudgetMs: 2_000 } }),
    );
    const childId = await approvalAt(workflowId, ['pay']);
    // Only the run started for the call may report its waits; a bad report is refused, not applied.
    const parent = suite.env.client.workflow.getHandle(workflowId);
    await parent.signal('childWaiting', { toolCallId: 'pay', workflowId: 'sub-elsewhere/pay', waiting: false });
    await parent.signal('childWaiting', { toolCallId: 'pay', workflowId: childId, waiting: 'no' });
    const refused = await waitFor('the refusals', async () => {
      const events = (await suite.agents.events(workflowId, 0, 1000)).events.filter((e) => e.type === 'signal_rejected');
      return events.length === 2 ? events.map((e) => (e as { reason: string }).reason) : undefined;
    });
    expect(refused).toEqual(['call pay has no sub-agent run sub-elsewhere/pay', expect.stringContaining('waiting')]);
    await pastTheBudget();
    expect((await suite.agents.status(childId)).status).toBe('awaiting');
    await suite.agents.decideInTree(workflowId, ['pay'], { decision: 'approve', toolCallId: 'call_0_0' });
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'parent done' } });
    expect(result.finalizeReason).toBeUndefined();
    const [call] = result.final?.structured as unknown as { status: string; result: { status: string } }[];
    expect(call).toMatchObject({ status: 'ok', result: { status: 'completed' } });
    // The wait is not work: what the parent was charged is less than the time it waited.
    expect(result.cost.timeMs.used).toBeLessThan(2_000);
    const replay = await replayHistoryJson(JSON.parse(await suite.agents.exportHistory(workflowId)), await workflowBundleOption());
    expect(replay).toMatchObject({ ok: true });
  });

  it('a grandchild\'s approval holds the time budgets of its parent and of the root', async () => {
    const middleSteps = [delegate('pay', 'pay', childScript({ name: 'transfer', args: { to: 'acme', amount: 600 } })), { type: 'final', text: 'middle done' }] as ScriptStep[];
    const { workflowId } = await suite.agents.start({
      agent: 'nested-delegator',
      messages: [{ role: 'user', content: 'delegate twice' }],
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ id: 'mid', name: 'delegate_to_delegator', args: { task: 'pay through me', steps: middleSteps } as never }] }, done] },
      policy: { timeBudgetMs: 2_000 },
    });
    const grandchildId = await approvalAt(workflowId, ['mid', 'pay']);
    await pastTheBudget();
    expect((await suite.agents.status(grandchildId)).status).toBe('awaiting');
    await suite.agents.decideInTree(workflowId, ['mid', 'pay'], { decision: 'approve', toolCallId: 'call_0_0' });
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'parent done' } });
    expect(result.finalizeReason).toBeUndefined();
    const middleId = (await suite.agents.tree(workflowId)).children[0]!.workflowId;
    const middle = await suite.agents.result(middleId);
    expect(middle).toMatchObject({ status: 'completed', final: { text: 'middle done' } });
    expect(middle.finalizeReason).toBeUndefined();
  });

  it('a parent whose child works past the parent\'s time budget is still finalized', async () => {
    const { workflowId } = await suite.agents.start(
      delegatorRun([delegate('slow', 'work', childScript({ name: 'sleep', args: { ms: 60_000 } })), done], { policy: { timeBudgetMs: 1_500 } }),
    );
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', finalizeReason: 'time_budget' });
  });

  it('a child waiting for a person does not hold the budget while a call beside it works', async () => {
    const { workflowId } = await suite.agents.start(
      delegatorRun(
        [
          {
            type: 'tool_calls',
            calls: [
              { id: 'pay', name: 'delegate', args: { task: 'pay', steps: childScript({ name: 'transfer', args: { to: 'acme', amount: 800 } }) } as never },
              { id: 'work', name: 'sleep', args: { ms: 60_000 } },
            ],
          },
          done,
        ],
        { policy: { timeBudgetMs: 1_500 } },
      ),
    );
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', finalizeReason: 'time_budget' });
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    const results = events.filter((e) => e.type === 'tool_result').map((e) => [e.toolCallId, (e as { status: string }).status]);
    expect(results).toEqual(expect.arrayContaining([['pay', 'cancelled'], ['work', 'cancelled']]));
  });
});
