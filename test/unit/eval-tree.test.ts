import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRecordings, RecordingError } from '../../testing/eval';
import { CandidateTree } from '../../testing/eval/candidate-tree';
import { readExecution } from '../../testing/eval/execution';
import { readRecording } from '../../testing/eval/recording';
import { failedGates, summarize } from '../../testing/eval/summary';
import { formatEvalTable } from '../../testing/eval/reporters';
import { missingSubRuns, recordedTreeTurns, treeInterventions } from '../../testing/eval/tree-report';
import type { RunEvaluation } from '../../testing/eval/types';
import type { RunInput } from '../../contracts';
import { testAgents } from '../support/agents';

const corpus = join(__dirname, '../histories/0.13.0');
const history = (name: string): { source: string; json: unknown } => ({ source: name, json: JSON.parse(readFileSync(join(corpus, name), 'utf8')) });

describe('runs that continued as new', () => {
  it('reads the executions of one run as one: the first input, every tool call, the last result', async () => {
    const first = readExecution(history('continue-as-new.json').json, 'first');
    const last = readExecution(history('continue-as-new-continued.json').json, 'last');
    const [run, ...others] = await loadRecordings([history('continue-as-new-continued.json'), history('continue-as-new.json')]);
    expect(others).toEqual([]);
    expect(run?.source).toBe('continue-as-new.json');
    expect(run?.executions).toBe(2);
    expect(run?.input).toEqual(first.input);
    expect(first.toolCalls.length).toBeGreaterThan(0);
    expect(run?.toolCalls).toEqual([...first.toolCalls, ...last.toolCalls]);
    expect(run?.ending).toBe('completed');
    expect(run?.result?.status).toBe('completed');
  });

  it('refuses a later execution alone, naming the run id to export', async () => {
    await expect(loadRecordings([history('continue-as-new-continued.json')])).rejects.toThrow(
      /continue-as-new-continued\.json is a later execution of history-0\.13\.0-continue-as-new: it continued from run 01a21617-3078-7935-95e7-3dd0838536e6, .*agentctl history export history-0\.13\.0-continue-as-new --run-id 01a21617-3078-7935-95e7-3dd0838536e6/,
    );
  });

  it('refuses a first execution whose continuation is not given', async () => {
    expect(() => readRecording(history('continue-as-new.json').json, 'continue-as-new.json')).toThrow(RecordingError);
    await expect(loadRecordings([history('continue-as-new.json')])).rejects.toThrow(/continue-as-new\.json ended continued as new as run 44dab553-9d5e-483a-8a81-9ad11bb5aa4d of history-0\.13\.0-continue-as-new, whose history is not given/);
  });
});

describe('runs with sub-agent runs', () => {
  it("reads a child's history given with its parent's as part of the parent's recording, not as a run", async () => {
    const runs = await loadRecordings([history('sub-agent-child-d1.json'), history('sub-agent.json')]);
    expect(runs.map((r) => r.source)).toEqual(['sub-agent.json']);
    const [child] = runs[0]!.children;
    expect(child).toMatchObject({ workflowId: 'sub-01a21617-4718-7a90-8e0d-630cbdfbf526/d1', agent: 'scripted', path: ['d1'] });
    expect(child?.recording?.source).toBe('sub-agent-child-d1.json');
    expect(child?.recording?.toolCalls.map((c) => c.name)).toEqual(['echo']);
    expect(missingSubRuns(runs[0]!)).toEqual([]);
    expect(recordedTreeTurns(runs[0]!)).toBe(runs[0]!.steps.length + child!.recording!.steps.length);
  });

  it("names a child whose history was not given; a child without its parent is a run of its own", async () => {
    const [parent] = await loadRecordings([history('sub-agent.json')]);
    expect(missingSubRuns(parent!)).toEqual([{ workflowId: 'sub-01a21617-4718-7a90-8e0d-630cbdfbf526/d1', agent: 'scripted', path: ['d1'] }]);
    expect((await loadRecordings([history('sub-agent-child-d1.json')])).map((r) => r.source)).toEqual(['sub-agent-child-d1.json']);
  });

  it("answers a candidate's child from the recorded child with the same input, else from the pool of the agent's recorded children", async () => {
    const [parent] = await loadRecordings([history('sub-agent-child-d1.json'), history('sub-agent.json')]);
    const recordedChild = parent!.children[0]!;
    const inputs: Record<string, RunInput> = {
      'c-same': { ...recordedChild.input, parent: { workflowId: 'root', toolCallId: 'x1', path: ['x1'] }, policy: { maxToolCalls: 3 } },
      'c-other': { ...recordedChild.input, messages: [{ role: 'user', content: 'something else' }], parent: { workflowId: 'root', toolCallId: 'x2', path: ['x2'] } },
      stranger: { agent: 'scripted', messages: [{ role: 'user', content: 'hi' }] },
    };
    const tree = new CandidateTree(testAgents, (id) => Promise.resolve(inputs[id]));
    tree.addRoot('root', parent!);
    const same = await tree.node('c-same');
    expect([same?.recordedChild?.workflowId, same?.recorded?.source, same?.path]).toEqual([recordedChild.workflowId, 'sub-agent-child-d1.json', ['x1']]);
    expect(same?.answers.take('echo', { text: 'from the child' })).toMatchObject({ kind: 'ok' });
    const other = await tree.node('c-other');
    expect([other?.recorded, other?.pooled?.map((r) => r.source)]).toEqual([undefined, ['sub-agent-child-d1.json']]);
    expect(await tree.node('stranger')).toBeUndefined();
  });

  it("a candidate's child whose recorded child was not given gets no answers, saying why", async () => {
    const [parent] = await loadRecordings([history('sub-agent.json')]);
    const input = { ...parent!.children[0]!.input, parent: { workflowId: 'root', toolCallId: 'x1', path: ['x1'] } };
    const tree = new CandidateTree(testAgents, () => Promise.resolve(input));
    tree.addRoot('root', parent!);
    const node = await tree.node('child');
    expect(node?.answers.take('echo', { text: 'from the child' })).toBeUndefined();
    expect(node?.answers.where).toEqual({ path: ['x1'], noRecording: `the recording of sub-agent run ${parent!.children[0]!.workflowId} was not given` });
  });
});

describe('operator interventions', () => {
  it('reads interventions, budget changes and kills from updates and signals, in order', async () => {
    const [run] = await loadRecordings([history('interventions.json')]);
    expect(treeInterventions(run!).map((i) => [i.kind, i.path])).toEqual([
      ['inject_message', []],
      ['override_system_prompt', []],
      ['edit_call', []],
      ['drop_call', []],
      ['block_tool', []],
      ['set_budget', []],
    ]);
    expect(run!.interventions[2]?.intervention).toEqual({ kind: 'edit_call', toolCallId: 'call_0_0', args: { text: 'edited' } });
  });
});

describe("a sub-agent run's divergence in reports and gates", () => {
  const side = { input: { agent: 'a', messages: [{ role: 'user' as const, content: 'hi' }] }, steps: [], status: 'completed' };
  const run: RunEvaluation = {
    source: 'lead.json',
    agent: 'lead',
    candidateWorkflowId: 'eval-1',
    recorded: side,
    candidate: side,
    sameFinal: true,
    unrecorded: [],
    answeredCalls: 0,
    liveCalls: 0,
    missingSubRuns: [{ workflowId: 'sub-e/c2', agent: 'quoter', path: ['c2'] }],
    interventions: [{ workflowId: 'w', path: ['c1'], kind: 'drop_call', intervention: { kind: 'drop_call', toolCallId: 'q' } }],
    subRuns: [
      {
        agent: 'quoter',
        path: ['c1'],
        candidateWorkflowId: 'sub-x/c1',
        answeredFrom: 'recording',
        status: 'completed',
        answeredCalls: 1,
        divergence: { turn: 0, kind: 'tool_choice', recorded: [], candidate: [], summary: 'turn 0: a {} → b {}' },
      },
    ],
  };

  it('counts the run as diverged and fails both divergence gates, naming the sub-agent run', () => {
    const report = summarize([run], {});
    expect(report.totals).toMatchObject({ diverged: 1, toolChoiceDivergences: 1 });
    expect(failedGates(report, ['no-divergence', 'no-tool-divergence']).map((g) => [g.gate, g.runs[0]?.reason])).toEqual([
      ['no-divergence', 'diverged (tool_choice) at sub-run c1 (quoter) turn 0: a {} → b {}'],
      ['no-tool-divergence', 'chose other tools at sub-run c1 (quoter) turn 0: a {} → b {}'],
    ]);
  });

  it('lists the missing recording, the divergence and the intervention in the table', () => {
    const table = formatEvalTable(summarize([run], {}));
    expect(table).toContain('sub-run c1 turn 0 (tool_choice)');
    expect(table).toContain('sub-run sub-e/c2 (quoter) not given');
    expect(table).toContain('intervention (drop_call) in sub-run c1, which the candidate did not get: {"kind":"drop_call","toolCallId":"q"}');
  });
});
