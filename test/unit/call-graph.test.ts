import { carriedRunStateSchema } from '../../contracts';
import { carriedOutputs, graphProblems, usesCallGraph, withCallGraph } from '../../workflows/state/call-graph';
import { toolCallSchema } from '../../contracts';

const call = (id: string | undefined, dependsOn?: string[], outputPath?: string) => ({ ...(id ? { id } : {}), name: 't', args: {}, ...(dependsOn ? { dependsOn } : {}), ...(outputPath ? { outputPath } : {}) });

describe('call graph of a plan', () => {
  it('resolves dependsOn from planner ids to the run-unique ids the runtime assigned', () => {
    const requests = withCallGraph([call('a'), call('a'), call(undefined, ['a'], 'x.y')], ['a#2', 'a#3', 'call_4_2'], 4);
    expect(requests).toEqual([
      { toolCallId: 'a#2', name: 't', args: {}, turn: 4 },
      { toolCallId: 'a#3', name: 't', args: {}, turn: 4 },
      { toolCallId: 'call_4_2', name: 't', args: {}, turn: 4, dependsOn: ['a#2'], outputPath: 'x.y' },
    ]);
    expect(usesCallGraph(requests)).toBe(true);
    expect(usesCallGraph(withCallGraph([call('a'), call('b')], ['a', 'b'], 0))).toBe(false);
  });

  it('names unknown dependencies, self-dependencies and cycles, in plan order', () => {
    const requests = withCallGraph([call('a', ['zz', 'yy']), call('s', ['s']), call('p', ['q']), call('q', ['r']), call('r', ['p']), call('d', ['p'])], ['a', 's', 'p', 'q', 'r', 'd'], 0);
    const problems = graphProblems(requests);
    expect(problems.get('a')).toBe('dependsOn names "zz", "yy", which are not calls of this plan');
    expect(problems.get('s')).toBe('dependency cycle: s -> s');
    expect(problems.get('p')).toBe('dependency cycle: p -> q -> r -> p');
    expect(problems.get('r')).toBe('dependency cycle: p -> q -> r -> p');
    // A call that only depends on a broken one is answered when that one is.
    expect(problems.has('d')).toBe(false);
  });

  it('validates output paths and dependency lists in the plan contract', () => {
    expect(toolCallSchema.safeParse(call('a', undefined, 'report.summary_1')).success).toBe(true);
    for (const bad of ['', 'a..b', '.a', 'a b', 'x/y']) expect(toolCallSchema.safeParse({ ...call('a'), outputPath: bad }).success).toBe(false);
    expect(toolCallSchema.safeParse(call('a', Array.from({ length: 65 }, (_, i) => `c${i}`))).success).toBe(false);
  });

  it('carries written paths across continue-as-new, dropping old values but keeping them written', () => {
    const outputs = new Map([
      ['old', { toolCallId: 'a', turn: 1, value: { big: true } }],
      ['new', { toolCallId: 'b', turn: 9, value: 42 }],
      ['omitted', { toolCallId: 'c', turn: 9, valueOmitted: true }],
    ]);
    const carried = carriedOutputs(outputs, 5);
    expect(carried).toEqual({ old: { toolCallId: 'a', turn: 1, valueOmitted: true }, new: { toolCallId: 'b', turn: 9, value: 42 }, omitted: { toolCallId: 'c', turn: 9, valueOmitted: true } });
    const shape = carriedRunStateSchema.unwrap().shape.outputs;
    expect(shape.safeParse(carried).success).toBe(true);
  });
});
