import { startAgentServer } from '../../server';
import type { RunPendingInputs } from '../../client/run-tree';
import { pendingInputsSchema, type PendingInputs, type RunInput, type RunResult } from '../../contracts';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { addAapl, callStep, contextStep, finalStep, scriptedInput, type Observation, watchlistRun } from '../support/scripts';
import { agentSuite } from '../support/agent-suite';
import { runAgentctl } from '../support/agentctl-cli';
import { waitFor } from '../support/wait';

const suite = agentSuite('agentctl-hitl');
const agentctl = (args: string[], stdin = '') => runAgentctl(suite, args, stdin);

async function approvalWaits(workflowId: string): Promise<PendingInputs['approvals']> {
  return waitFor('a call waiting for confirmation', async () => {
    const { approvals } = await suite.agents.pendingInputs(workflowId);
    return approvals.length > 0 ? approvals : undefined;
  });
}

type View = { messages: { role: string; content?: string }[]; outputs: Observation[] };
const view = (result: RunResult): View => result.final?.structured as unknown as View;
const observations = (result: RunResult): Observation[] => result.final?.structured as unknown as Observation[];

describe('agentctl: approvals', () => {
  it('pending lists the call; approve runs it and session state changes', async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([addAapl, contextStep]));
    await approvalWaits(workflowId);

    const [json, text] = await Promise.all([agentctl(['pending', workflowId, '--json']), agentctl(['pending', workflowId])]);
    expect(json.code).toBe(0);
    expect(pendingInputsSchema.parse(JSON.parse(json.stdout)).approvals).toEqual([
      expect.objectContaining({ toolCallId: 'call_0_0', name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }),
    ]);
    expect(text.stdout).toMatch(/^approvals \(waiting for confirmation\):\n {2}call_0_0 {2}add_to_watchlist \{"symbols":\["AAPL"\]\} {2}since /);

    const approve = await agentctl(['approve', workflowId, '--call', 'call_0_0', '--by', 'alice']);
    expect(approve).toMatchObject({ code: 0, stdout: `approved call_0_0 on ${workflowId}\nnothing else waits\n` });
    const result = await suite.agents.result(workflowId);
    expect(result.sessionState).toEqual({ watchlist: ['AAPL'] });
    const decided = (await suite.agents.events(workflowId, 0, 1000)).events.find((e) => e.type === 'approval_decided');
    expect(decided).toMatchObject({ decision: 'approve', by: 'alice' });
  });

  it('reject closes the call with the reason; session state is unchanged', async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([addAapl, contextStep], ['TSLA']));
    await approvalWaits(workflowId);
    const reject = await agentctl(['reject', workflowId, '--call', 'call_0_0', '--reason', 'not today']);
    expect(reject.code).toBe(0);
    const result = await suite.agents.result(workflowId);
    expect(result.sessionState).toEqual({ watchlist: ['TSLA'] });
    expect(view(result).outputs[0]).toMatchObject({ status: 'error', errorType: 'rejected', errorMessage: 'rejected by a human: not today' });
  });

  it('edit: invalid JSON exits 2, arguments the run refuses exit 5, valid ones run', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'add', args: { a: 1, b: 2 } }), finalStep()], { confirmation: { all: true } }));
    await approvalWaits(workflowId);
    const [badJson, refused] = await Promise.all([
      agentctl(['edit', workflowId, '--call', 'call_0_0', '--args', '{"a":']),
      agentctl(['edit', workflowId, '--call', 'call_0_0', '--args', '{"a":"ten","b":5}']),
    ]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/^agentctl: --args: invalid JSON/);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/^agentctl: arguments do not match add: a: /);

    expect((await agentctl(['edit', workflowId, '--call', 'call_0_0', '--args', '{"a":10,"b":5}'])).code).toBe(0);
    expect(observations(await suite.agents.result(workflowId))[0]).toMatchObject({ status: 'ok', result: { sum: 15 } });
  });
});

describe('agentctl: answers', () => {
  const barrier: ScriptStep = {
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
        { kind: 'external_tools', id: 'quotes', calls: [{ toolCallId: 'ext_1', name: 'get_quote', args: { symbol: 'AAPL' } }] },
      ],
    },
  };

  it("answer --choose / --text / --result; an unknown option exits 5 with the run's message", async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([barrier, contextStep]));
    await waitFor('an open await', async () => (await suite.agents.pendingInputs(workflowId)).await);

    const pending = await agentctl(['pending', workflowId]);
    expect(pending.stdout).toContain('    color: Favourite colour? options: red (Red), blue (Blue)\n');

    const invalid = await agentctl(['answer', workflowId, '--item', 'prefs', '--choose', 'color=green', '--choose', 'sizes=s']);
    expect(invalid).toMatchObject({ code: 5, stderr: 'agentctl: question "color": unknown option green; options: red, blue\n' });

    const answers = await Promise.all([
      agentctl(['answer', workflowId, '--item', 'prefs', '--choose', 'color=blue', '--choose', 'sizes=s,m']),
      agentctl(['answer', workflowId, '--item', 'city', '--text', 'Paris', '--fields', '{"city":"Paris"}']),
      agentctl(['answer', workflowId, '--item', 'quotes', '--result', '{"symbol":"AAPL","price":1,"currency":"USD"}']),
    ]);
    expect(answers.map((a) => [a.code, a.stderr])).toEqual([
      [0, ''],
      [0, ''],
      [0, ''],
    ]);

    const result = await suite.agents.result(workflowId);
    const userMessages = view(result).messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(userMessages.slice(1)).toEqual(['Favourite colour?: Blue\nSizes?: S, M', 'Answer to "Which city?": Paris {"city":"Paris"}']);
    expect(view(result).outputs).toEqual([expect.objectContaining({ toolCallId: 'ext_1', status: 'ok', result: { symbol: 'AAPL', price: 1, currency: 'USD' } })]);
  });
});

describe('agentctl interactive', () => {
  it('answers piped on stdin approve the call; it prints the result when the run ends', async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([addAapl, contextStep]));
    const r = await agentctl(['interactive', workflowId, '--by', 'pipe'], 'a\n');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('add_to_watchlist(call_0_0) {"symbols":["AAPL"]} waits for confirmation\n[a]pprove / [A]lways / [r]eject / [e]dit > a\n');
    expect(r.stdout).toContain('\napproved call_0_0\n');
    expect(r.stdout).toMatch(/result: completed: done\n.*\nsession state: \{"watchlist":\["AAPL"\]\}\n$/);
    expect((await suite.agents.result(workflowId)).sessionState).toEqual({ watchlist: ['AAPL'] });
  });

  it('attach with nothing on stdin detaches and leaves the call waiting', async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([addAapl, contextStep]));
    await approvalWaits(workflowId);
    const r = await agentctl(['attach', workflowId]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`re-attach: agentctl interactive ${workflowId} --after \\d+\\n$`));
    expect((await suite.agents.pendingInputs(workflowId)).approvals.map((a) => a.toolCallId)).toEqual(['call_0_0']);
    await suite.agents.kill(workflowId, { reason: 'test over' });
  });
});

describe('agentctl: pending inputs of a run and its sub-agent runs', () => {
  /** A delegator whose sub-agent (call `pay`) asks to confirm a transfer. */
  const delegatorRun = (amount: number): RunInput => ({
    agent: 'delegator',
    messages: [{ role: 'user', content: 'delegate' }],
    plannerOptions: {
      steps: [
        { type: 'tool_calls', calls: [{ id: 'pay', name: 'delegate', args: { task: 'pay acme', steps: [callStep({ name: 'transfer', args: { to: 'acme', amount } }), finalStep('paid')] } as never }] },
        finalStep('parent done'),
      ],
    },
  });
  const childWaits = (workflowId: string) =>
    waitFor('the sub-agent approval', async () => {
      const pending = await suite.agents.pendingInputs(workflowId);
      return pending.tree.some((p) => p.approvals.length > 0) ? pending : undefined;
    });

  it('pending ROOT lists what a sub-agent run waits for, with its path; approve without --path names that path', async () => {
    const { workflowId } = await suite.agents.start(delegatorRun(500));
    await childWaits(workflowId);

    const [text, json] = await Promise.all([agentctl(['pending', workflowId]), agentctl(['pending', workflowId, '--json'])]);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain('waits for nothing');
    expect(text.stdout).toMatch(/^sub-agent run at path pay \(sub-\S+\/pay\), decide with --path pay:\napprovals \(waiting for confirmation\):\n {2}call_0_0 {2}transfer \{"to":"acme","amount":500\}/m);
    const listed = JSON.parse(json.stdout) as RunPendingInputs;
    expect(listed.approvals).toEqual([]);
    expect(listed.tree).toEqual([expect.objectContaining({ path: ['pay'], workflowId: expect.stringMatching(/^sub-.+\/pay$/), approvals: [expect.objectContaining({ toolCallId: 'call_0_0', name: 'transfer' })] })]);

    const withoutPath = await agentctl(['approve', workflowId, '--call', 'call_0_0']);
    expect(withoutPath.code).toBe(5);
    expect(withoutPath.stderr).toMatch(/call_0_0 waits in the sub-agent run at path pay \(sub-\S+\/pay\): decide it there \(--path pay\)\n$/);

    const approved = await agentctl(['approve', workflowId, '--path', 'pay', '--call', 'call_0_0']);
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
  });

  it('answer without --path names the sub-agent run whose await has the item; with --path it answers there', async () => {
    const clarify: ScriptStep = { type: 'await', await: { items: [{ kind: 'clarification', id: 'city', question: 'Which city?' }] } };
    const { workflowId } = await suite.agents.start({
      agent: 'delegator',
      messages: [{ role: 'user', content: 'delegate' }],
      plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ id: 'ask', name: 'delegate', args: { task: 'ask', steps: [clarify, finalStep('asked')] } as never }] }, finalStep('parent done')] },
    });
    await waitFor('the sub-agent await', async () => ((await suite.agents.pendingInputs(workflowId)).tree.some((p) => p.await) ? true : undefined));

    const withoutPath = await agentctl(['answer', workflowId, '--item', 'city', '--text', 'Paris']);
    expect(withoutPath.code).toBe(5);
    expect(withoutPath.stderr).toMatch(new RegExp(`^agentctl: no open await item "city" on ${workflowId}; it waits in the sub-agent run at path ask \\(sub-\\S+/ask\\): answer it there \\(--path ask\\)\\n$`));

    const answered = await agentctl(['answer', workflowId, '--path', 'ask', '--item', 'city', '--text', 'Paris']);
    expect(answered).toMatchObject({ code: 0, stderr: '' });
    expect(answered.stdout).toMatch(/^answered city on sub-\S+\/ask\n/);
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
  });

  it('GET /api/runs/:id/pending and AgentClient.pendingInputs give the same one list, each run with its path', async () => {
    const server = await startAgentServer({ agents: suite.agents, auth: { localDev: false, tokens: [{ name: 'vera', role: 'viewer', token: 'viewer-token-0123456789' }] } });
    try {
      const { workflowId } = await suite.agents.start(delegatorRun(600));
      const pending = await childWaits(workflowId);
      const response = await fetch(`${server.url}/api/runs/${workflowId}/pending`, { headers: { authorization: 'Bearer viewer-token-0123456789' } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as RunPendingInputs;
      expect(body).toEqual(JSON.parse(JSON.stringify(pending)));
      expect(body.tree.map((p) => p.path)).toEqual([['pay']]);
      await suite.agents.decideInTree(workflowId, ['pay'], { decision: 'reject', toolCallId: 'call_0_0' });
      await suite.agents.result(workflowId);
    } finally {
      await server.close();
    }
  });
});
