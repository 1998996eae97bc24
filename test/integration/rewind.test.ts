import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemorySideEffectSink } from '../../examples/toolbox/tools';
import { allToolImplementations } from '../support/tools';
import type { RunEvent } from '../../contracts';
import { replayHistoriesJson, replayHistoryJson } from '../../worker/replay';
import { addAapl, callStep, finalStep, observations, scriptedInput, watchlistRun, type Observation } from '../support/scripts';
import { forkBundleOption, workflowBundleOption } from '../support/test-env';
import { forkRun } from '../../worker/fork';
import { bundleWorkflowsForTests } from '../support/bundle-cache';
import { agentSuite } from '../support/agent-suite';
import { waitFor } from '../support/wait';

const sink = new MemorySideEffectSink();
let watchlistOnly: ReturnType<typeof bundleWorkflowsForTests> | undefined;
/** The watchlist example's own bundle (only the watchlist agents), built once for this file. */
const watchlistOnlyBundle = () => (watchlistOnly ??= bundleWorkflowsForTests(require.resolve('../../examples/watchlist/workflows')));
const suite = agentSuite('rewind', () => allToolImplementations({ sideEffects: sink }));

const fiveTurns = () =>
  scriptedInput([1, 2, 3, 4, 5].map((n) => callStep({ name: 'record', args: { label: `t${n}` } })).concat(finalStep('five turns')));

/** Turns whose boundary a memo change marks in an execution's history (the others are marked by their first activity). */
async function memoBoundaries(workflowId: string, runId?: string): Promise<number[]> {
  const history = await suite.agents.client.workflow.getHandle(workflowId, runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const payload = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.turnBoundary;
    return payload?.data ? [Number(Buffer.from(payload.data).toString())] : [];
  });
}

function labelsOf(workflowId: string): string[] {
  return sink.entries.filter((e) => e.key.startsWith(`${workflowId}/`)).map((e) => e.label);
}

describe('checkpoints and rewind', () => {
  it('lists a boundary per turn, with what each turn did', async () => {
    const { workflowId } = await suite.agents.start(fiveTurns());
    await suite.agents.result(workflowId);
    const checkpoints = await suite.agents.checkpoints(workflowId);
    expect(checkpoints.map((c) => c.turn)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(checkpoints[0]?.summary.toolCalls).toEqual(['record']);
    expect(checkpoints.at(-1)?.summary.toolCalls).toEqual([]);
    expect(checkpoints.every((c, i, all) => i === 0 || c.eventId > (all[i - 1]?.eventId ?? 0))).toBe(true);
    // Tool turns are marked by their first call: only the final turn, which schedules nothing, writes a memo change.
    expect(await memoBoundaries(workflowId)).toEqual([5]);
  });

  it('a turn whose first call waits for approval is a boundary too, and a rewind there asks again', async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([addAapl, finalStep('added')]));
    const approval = async () => (await suite.agents.pendingInputs(workflowId)).approvals[0];
    const first = await waitFor('the approval request', approval);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: first.toolCallId });
    await suite.agents.result(workflowId);
    // The task that began turn 0 scheduled no activity (the call waited): it is the run's first
    // task, which the reader knows as turn 0's boundary without a memo change (first-task-begins-run).
    expect(await memoBoundaries(workflowId)).toEqual([1]);
    const checkpoints = await suite.agents.checkpoints(workflowId);
    expect(checkpoints.map((c) => c.turn)).toEqual([0, 1]);
    expect(checkpoints[0]?.summary).toMatchObject({ toolCalls: ['add_to_watchlist'], updates: ['decideCall'] });

    await suite.agents.rewind(workflowId, { toTurn: 0, reason: 'ask again' });
    const again = await waitFor('the approval request after the rewind', approval);
    expect(again.toolCallId).toBe(first.toolCallId);
    await suite.agents.decide(workflowId, { decision: 'reject', toolCallId: again.toolCallId });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');
    expect(result.sessionState).toEqual({ watchlist: [] });
  });

  it('a rewind with reapply sends a decision again before its call asks: the rewound run refuses it (nothing waits yet), the call asks again with the same digest, and deciding it again applies once', async () => {
    const { workflowId } = await suite.agents.start(watchlistRun([addAapl, finalStep('added')]));
    const approval = async () => (await suite.agents.pendingInputs(workflowId)).approvals[0];
    const first = await waitFor('the approval request', approval);
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: first.toolCallId, digest: first.digest, by: 'ana' });
    expect((await suite.agents.result(workflowId)).sessionState).toEqual({ watchlist: ['AAPL'] });

    const { runId } = await suite.agents.rewind(workflowId, { toTurn: 0, reapply: true, reason: 'again, keep what came' });
    const again = await waitFor('the approval request after the rewind', approval);
    expect(again).toMatchObject({ toolCallId: first.toolCallId, digest: first.digest });
    // The decision came again at the rewind point, as Temporal reapplies an update: before the
    // rewound run asked, so its validator refused it (nothing waits) and it left no event.
    const history = await suite.agents.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const updates = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAdmittedEventAttributes || e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(updates.map((e) => (e.workflowExecutionUpdateAdmittedEventAttributes ? 'admitted' : 'accepted'))).toEqual(['admitted']);
    expect((await suite.agents.events(workflowId, 0, 200)).events.filter((e) => e.type === 'approval_decided')).toEqual([]);
    expect((await suite.agents.status(workflowId)).status).toBe('awaiting');

    // The same decision, bound to the same digest, applies in the rewound run, once.
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: again.toolCallId, digest: first.digest, by: 'ana' });
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', sessionState: { watchlist: ['AAPL'] } });
    expect((await suite.agents.events(workflowId, 0, 200)).events.filter((e) => e.type === 'approval_decided')).toEqual([
      expect.objectContaining({ toolCallId: first.toolCallId, decision: 'approve', by: 'ana', digest: first.digest }),
    ]);
  });

  it('a run continued as new has a boundary where its new execution starts, and rewinds there', async () => {
    const input = { ...fiveTurns(), policy: { continueAsNewAfterEvents: 20 } };
    const { workflowId, runId: firstRunId } = await suite.agents.start(input);
    await suite.agents.result(workflowId);
    const latest = await suite.agents.client.workflow.getHandle(workflowId).describe();
    expect(latest.runId).not.toBe(firstRunId);
    const checkpoints = await suite.agents.checkpoints(workflowId);
    const start = checkpoints[0];
    if (!start) throw new Error('no boundary in the last execution');
    // The first boundary of the continued execution is its first workflow task.
    expect(start.eventId).toBe(4);
    expect(start.turn).toBeGreaterThan(0);
    const before = labelsOf(workflowId).length;
    await suite.agents.rewind(workflowId, { toTurn: start.turn, reason: 'back to the execution start' });
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', iterations: 5 });
    // The turns after that boundary ran again, and only those.
    expect(labelsOf(workflowId).slice(before)).toEqual(labelsOf(workflowId).slice(start.turn, 5));
  });

  it('rewinding a completed 5-turn run to turn 2 re-executes turns 3-5 and completes', async () => {
    const { workflowId, runId: firstRunId } = await suite.agents.start(fiveTurns());
    await suite.agents.result(workflowId);
    expect(labelsOf(workflowId)).toEqual(['t1', 't2', 't3', 't4', 't5']);

    const { runId } = await suite.agents.rewind(workflowId, { toTurn: 2, reason: 'test rewind' });
    expect(runId).not.toBe(firstRunId);
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', iterations: 5, final: { text: 'five turns' } });
    // Turns 1-2 were kept from history; turns 3-5 ran again on the new run.
    expect(labelsOf(workflowId)).toEqual(['t1', 't2', 't3', 't4', 't5', 't3', 't4', 't5']);
    // The re-run calls have new idempotency keys: never deduplicated into the old effects.
    const outputs = result.final?.structured as unknown as Observation[];
    expect(outputs.map((o) => (o.result as { seen: number }).seen)).toEqual([1, 1, 1, 1, 1]);
    const keyOf = (label: string) => sink.entries.filter((e) => e.key.startsWith(`${workflowId}/`) && e.label === label).map((e) => e.key);
    expect(new Set(keyOf('t3')).size).toBe(2);
    const { events } = await suite.agents.events(workflowId, 0, 1000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(5);
  });

  it('a rewind with a correction is a fork with a fix: the next call runs with the edit', async () => {
    // The last turn is slow, so the run is still open when it is rewound: corrections then
    // reach the rewind point exactly.
    const steps = [1, 2, 3, 4].map((n) => callStep({ name: 'record', args: { label: `t${n}` } }));
    const { workflowId } = await suite.agents.start(scriptedInput([...steps, callStep({ name: 'record', args: { label: 't5', delayMs: 1_500 } }), finalStep()]));
    await waitFor('the slow last turn', async () => ((await suite.agents.status(workflowId)).pendingCalls.some((c) => c.toolCallId === 'call_4_0') ? true : undefined));
    const rewound = await suite.agents.rewind(workflowId, {
      toTurn: 2,
      with: [
        { kind: 'edit_call', toolCallId: 'call_2_0', args: { label: 't3-fixed' } },
        { kind: 'inject_message', role: 'user', content: 'use the fixed label' },
      ],
    });
    expect(rewound.corrections).toBe('atomic');
    const result = await suite.agents.result(workflowId);
    const outputs = result.final?.structured as unknown as Observation[];
    expect(outputs.map((o) => (o.result as { label: string }).label)).toEqual(['t1', 't2', 't3-fixed', 't4', 't5']);
    const { events } = await suite.agents.events(workflowId, 0, 1000);
    const applied = events.filter((e): e is Extract<RunEvent, { type: 'intervention_applied' }> => e.type === 'intervention_applied');
    expect(applied.map((e) => e.kind)).toEqual(['inject_message', 'edit_call']);
  });

  it('a follower across a rewind is told where the log was replaced and gets the new events', async () => {
    const steps = [1, 2, 3].map((n) => callStep({ name: 'record', args: { label: `f${n}` } }));
    const { workflowId } = await suite.agents.start(scriptedInput([...steps, callStep({ name: 'record', args: { label: 'f4', delayMs: 2_000 } }), finalStep('followed')]));
    const rewinds: { epoch: string; fromSeq: number }[] = [];
    const log = new Map<number, RunEvent>();
    const following = (async () => {
      for await (const event of suite.agents.follow(workflowId, { onRewind: (r) => rewinds.push(r) })) {
        log.set(event.seq, event);
        if (rewinds.length === 0 && event.type === 'tool_call' && event.toolCallId === 'call_3_0') {
          // Rewind while this follower is past the rewind point.
          await suite.agents.rewind(workflowId, { toTurn: 1 });
        }
      }
    })();
    await following;
    const { events } = await suite.agents.events(workflowId, 0, 1000);
    expect(rewinds).toHaveLength(1);
    expect(rewinds[0]?.epoch).toBe((await suite.env.client.workflow.getHandle(workflowId).describe()).runId);
    // The follower's view, with replaced seqs overwritten, is exactly the new log.
    expect([...log.values()].sort((a, b) => a.seq - b.seq)).toEqual(events);
    expect(events.at(-1)).toMatchObject({ type: 'status_changed', to: 'completed' });
  });

  it('rewinds a run that is still running, from its latest boundary', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'record', args: { label: 'r1' } }), callStep({ name: 'sleep', args: { ms: 60_000 } }), finalStep('resumed')]));
    const boundary = await (async () => {
      for (let i = 0; i < 100; i++) {
        const checkpoints = await suite.agents.checkpoints(workflowId);
        if (checkpoints.some((c) => c.turn === 1)) return 1;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('no boundary after turn 1');
    })();
    await suite.agents.rewind(workflowId, { toTurn: boundary, with: [{ kind: 'drop_call', toolCallId: 'call_1_0', reason: 'too slow' }] });
    const result = await suite.agents.result(workflowId);
    expect(result.final?.text).toBe('resumed');
    expect((result.final?.structured as unknown as Observation[])[1]).toMatchObject({ status: 'error', errorType: 'rejected' });
  });

  it('names the turns there are when asked for one that does not exist', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([finalStep('quick')]));
    await suite.agents.result(workflowId);
    await expect(suite.agents.rewind(workflowId, { toTurn: 7 })).rejects.toMatchObject({ type: 'no_such_turn', message: expect.stringMatching(/available: 0$/) });
    await expect(suite.agents.rewind(workflowId, { toTurn: 0, with: [{ kind: 'teleport' } as never] })).rejects.toMatchObject({ type: 'invalid_input' });
  });

  it('turns of local tools that run in one workflow task share its boundary: no memo change, and a rewind to a later turn says where to go', async () => {
    const quick = (text: string) => callStep({ name: 'quick', args: { text } });
    const { workflowId } = await suite.agents.start({ ...scriptedInput([quick('a'), quick('b'), quick('c'), quick('d'), finalStep('local done')]), agent: 'faulty' });
    await suite.agents.result(workflowId);
    const events = (await suite.agents.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    // Local activities keep the task open while they run: the four tool turns and the final one begin in the first task.
    const tasks = events.filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => Number(e.eventId));
    const localCalls = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    expect(localCalls.every((e) => Number(e.markerRecordedEventAttributes?.workflowTaskCompletedEventId) === tasks[0])).toBe(true);
    expect(localCalls).toHaveLength(4);
    // One boundary for that task (turn 0), where 0.10.0 wrote a memo change for each of the five
    // turns and 0.11.0–0.13.0 one; since first-task-begins-run the run's first task needs none.
    expect(await memoBoundaries(workflowId)).toEqual([]);
    expect((await suite.agents.checkpoints(workflowId)).map((c) => [c.turn, c.eventId])).toEqual([[0, tasks[0]]]);
    // The history still tells how many turns began (the local calls name theirs).
    expect((await suite.agents.statusFromHistory(workflowId)).turns).toBe(4);

    // A rewind to turn 2 would reset to the task's start and re-run turns 0 and 1 too: refused, saying so.
    await expect(suite.agents.rewind(workflowId, { toTurn: 2 })).rejects.toMatchObject({
      type: 'no_such_turn',
      message: expect.stringContaining('turn 2 began in the workflow task that began turn 0 (as turns of local tools do), and a rewind goes back to the start of a task: rewind to 0 instead; available: 0'),
    });
    await suite.agents.rewind(workflowId, { toTurn: 0, reason: 'again, from the start' });
    const again = await suite.agents.result(workflowId);
    expect(again).toMatchObject({ status: 'completed', final: { text: 'local done' } });
    expect(observations(again).map((o) => (o.result as { reversed: string }).reversed)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('fork to a new workflow id', () => {
  it('forks a completed run at turn 2 with a fix: the original stays, the fork re-runs only turns 3-5, the edit applies', async () => {
    const { workflowId, runId } = await suite.agents.start(fiveTurns());
    await suite.agents.result(workflowId);
    const fork = await forkRun(suite.env.client, workflowId, {
      toTurn: 2,
      ...(await forkBundleOption()),
      with: [{ kind: 'edit_call', toolCallId: 'call_2_0', args: { label: 't3-fixed' } }],
    });
    expect(fork.workflowId).not.toBe(workflowId);
    const result = await suite.agents.result(fork.workflowId);
    expect(result).toMatchObject({ status: 'completed', iterations: 5, final: { text: 'five turns' } });
    const outputs = result.final?.structured as unknown as Observation[];
    expect(outputs.slice(2).map((o) => (o.result as { label: string }).label)).toEqual(['t3-fixed', 't4', 't5']);
    // Turns 1-2 did not run again: the fork's own side effects are turns 3-5 only.
    expect(labelsOf(fork.workflowId)).toEqual(['t3-fixed', 't4', 't5']);
    // The original run is untouched.
    expect((await suite.env.client.workflow.getHandle(workflowId).describe()).runId).toBe(runId);
    expect(labelsOf(workflowId)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    // One event log, continuing from the boundary.
    const { events } = await suite.agents.events(fork.workflowId, 0, 1000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => events[0]!.seq + i));
    expect(events.filter((e) => e.type === 'intervention_applied').map((e) => (e as { kind: string }).kind)).toEqual(['edit_call']);
  });

  it('names the turns there are when asked for one the run lacks', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([finalStep('quick')]));
    await suite.agents.result(workflowId);
    await expect(forkRun(suite.env.client, workflowId, { toTurn: 3, ...(await forkBundleOption()) })).rejects.toMatchObject({
      type: 'no_such_turn',
      message: expect.stringMatching(/available: 0$/),
    });
    await expect(forkRun(suite.env.client, workflowId, { toTurn: 0, ...(await forkBundleOption()) })).rejects.toMatchObject({
      type: 'invalid_input',
      message: expect.stringContaining('a fork keeps at least one turn'),
    });
  });
});

describe('history export and replay', () => {
  it('an exported history replays against the current code', async () => {
    const { workflowId } = await suite.agents.start(fiveTurns());
    await suite.agents.result(workflowId);
    const outcome = await replayHistoryJson(JSON.parse(await suite.agents.exportHistory(workflowId)), await workflowBundleOption());
    expect(outcome).toMatchObject({ ok: true });
  });

  it('a history the code no longer matches is reported in plain words', async () => {
    const { workflowId } = await suite.agents.start(fiveTurns());
    await suite.agents.result(workflowId);
    const json = JSON.parse(await suite.agents.exportHistory(workflowId)) as { events: { activityTaskScheduledEventAttributes?: { activityType: { name: string } } }[] };
    const scheduled = json.events.find((e) => e.activityTaskScheduledEventAttributes);
    if (scheduled?.activityTaskScheduledEventAttributes) scheduled.activityTaskScheduledEventAttributes.activityType.name = 'echo';
    const outcome = await replayHistoryJson(json, await workflowBundleOption());
    expect(outcome).toMatchObject({ ok: false, kind: 'nondeterminism', problem: 'the history scheduled activity "echo" but the current code schedules "scripted/record" at that point' });
  });

  it('a history whose agent is not in the bundle says so, not "nondeterministic"', async () => {
    const { workflowId } = await suite.agents.start(fiveTurns());
    await suite.agents.result(workflowId);
    const json: unknown = JSON.parse(await suite.agents.exportHistory(workflowId));
    // The watchlist example's own bundle knows only the watchlist agents, not `scripted`.
    const outcome = await replayHistoryJson(json, await watchlistOnlyBundle());
    expect(outcome).toMatchObject({ ok: false, kind: 'unknown_agent' });
    expect(outcome.ok ? '' : outcome.problem).toMatch(/^agent "scripted" is not in this bundle \(its agents: watchlist, watchlist-llm, watchlist-llm-report, watchlist-scripted\)/);
  });

  it('histories replayed together in one replay worker get each its own outcome, in order', async () => {
    const { workflowId } = await suite.agents.start(fiveTurns());
    await suite.agents.result(workflowId);
    const good: unknown = JSON.parse(await suite.agents.exportHistory(workflowId));
    const changed = JSON.parse(await suite.agents.exportHistory(workflowId)) as { events: { activityTaskScheduledEventAttributes?: { activityType: { name: string } } }[] };
    const scheduled = changed.events.find((e) => e.activityTaskScheduledEventAttributes);
    if (scheduled?.activityTaskScheduledEventAttributes) scheduled.activityTaskScheduledEventAttributes.activityType.name = 'echo';
    const watchlist: unknown = JSON.parse(readFileSync(join(__dirname, '../histories/0.13.0/watchlist.json'), 'utf8'));
    const outcomes = await replayHistoriesJson([good, changed, { events: 'not a history' }, watchlist, good], await watchlistOnlyBundle());
    // The watchlist bundle lacks `scripted`: its runs are unknown_agent, whatever else is wrong with them.
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.kind))).toEqual(['unknown_agent', 'unknown_agent', 'failure', 'ok', 'unknown_agent']);
    const mixed = await replayHistoriesJson([good, changed, good], await workflowBundleOption());
    expect(mixed.map((o) => (o.ok ? 'ok' : o.kind))).toEqual(['ok', 'nondeterminism', 'ok']);
  });
});
