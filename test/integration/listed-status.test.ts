/**
 * A kill ends a run by completing its workflow with status `terminated`; Temporal lists that
 * workflow as COMPLETED. Lists and results must show the run's own status, so a killed run is
 * never reported as completed.
 */
import { listRuns } from '../../client/run-list';
import { agentSuite } from '../support/agent-suite';
import { runAgentctl } from '../support/agentctl-cli';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

const suite = agentSuite('listed-status');

describe('the status a list and a result show', () => {
  it('a killed run is listed as terminated, filtered as terminated, and `agentctl result` exits non-zero; a completed one stays completed', async () => {
    const killed = await suite.agents.start(scriptedInput([callStep({ name: 'sleep', args: { ms: 600_000 } }), finalStep('never')]));
    await waitFor('the sleep call to run', async () => ((await suite.agents.status(killed.workflowId)).pendingCalls.length > 0 ? true : undefined));
    await suite.agents.kill(killed.workflowId, { reason: 'test kill' });
    expect(await suite.agents.result(killed.workflowId)).toMatchObject({ status: 'terminated' });
    const done = await suite.agents.start(scriptedInput([finalStep('fine')]));
    await suite.agents.result(done.workflowId);

    const listed = await waitFor('both runs in the visibility store, closed', async () => {
      const { entries } = await listRuns(suite.agents, { agent: 'scripted' }, { limit: 100 });
      const pair = [entries.find((e) => e.workflowId === killed.workflowId), entries.find((e) => e.workflowId === done.workflowId)];
      return pair.every((e) => e?.closeTime) ? pair : undefined;
    });
    expect(listed.map((e) => [e?.status, e?.workflowStatus])).toEqual([
      ['terminated', 'COMPLETED'],
      ['completed', 'COMPLETED'],
    ]);
    const terminated = await listRuns(suite.agents, { status: 'terminated' }, { limit: 100 });
    expect(terminated.entries.map((e) => e.workflowId)).toContain(killed.workflowId);

    const result = await runAgentctl(suite, ['result', killed.workflowId]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ended terminated, not completed');
    expect((await runAgentctl(suite, ['result', done.workflowId])).code).toBe(0);
  });

  it('a rewound run is listed once, as its latest execution: the replaced one is neither a run of its own nor in its old status', async () => {
    const { workflowId, runId: replaced } = await suite.agents.start(scriptedInput([callStep({ name: 'transfer', args: { to: 'acme', amount: 500 } }), finalStep('paid')]));
    await waitFor('the approval', async () => ((await suite.agents.pendingInputs(workflowId)).approvals.length === 1 ? true : undefined));
    const { runId: latest } = await suite.agents.rewind(workflowId, { toTurn: 0, reason: 'ask again' });
    expect(latest).not.toBe(replaced);
    // The new execution waits for the approval again; the replaced one was terminated by the reset
    // while its AgentStatus still said `awaiting`.
    const awaiting = await waitFor('the new execution listed as awaiting', async () => {
      const { entries } = await listRuns(suite.agents, { status: 'awaiting' }, { limit: 1000 });
      return entries.some((e) => e.runId === latest) ? entries : undefined;
    });
    expect(awaiting.filter((e) => e.workflowId === workflowId).map((e) => e.runId)).toEqual([latest]);
    const all = await listRuns(suite.agents, { agent: 'scripted' }, { limit: 1000 });
    expect(all.entries.filter((e) => e.workflowId === workflowId).map((e) => [e.runId, e.status, e.earlierExecutions])).toEqual([[latest, 'awaiting', 1]]);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
  });
});
