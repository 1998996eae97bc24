import { EarlyCallReporter } from '../../activities/model/early-calls';
import type { EarlyToolCall } from '../../contracts';

describe('EarlyCallReporter', () => {
  const target = { workflowId: 'wf', runId: 'r', turn: 3 };

  it('reports each complete call of an early tool once, as soon as its arguments are a whole JSON object', async () => {
    const sent: EarlyToolCall[] = [];
    const reporter = new EarlyCallReporter(target, new Set(['read']), async (c) => void sent.push(c));
    reporter.check([{ id: 'c1', name: 'read', arguments: '{"a":' }]);
    expect(sent).toEqual([]);
    reporter.check([{ id: 'c1', name: 'read', arguments: '{"a":1}' }, { id: 'c2', name: 'write', arguments: '{}' }]);
    reporter.check([{ id: 'c1', name: 'read', arguments: '{"a":1}' }, { id: 'c2', name: 'write', arguments: '{}' }, { name: 'read', arguments: '{}' }]);
    await reporter.flush();
    // Only early tools, only with an id, each once.
    expect(sent).toEqual([{ turn: 3, toolCallId: 'c1', name: 'read', args: { a: 1 } }]);
  });

  it('never reports arguments that are not a JSON object, and survives a failed report', async () => {
    const warnings: unknown[] = [];
    const attempted: string[] = [];
    const reporter = new EarlyCallReporter(
      target,
      new Set(['read']),
      (c) => {
        attempted.push(c.toolCallId);
        return Promise.reject(new Error('no server'));
      },
      (message, meta) => warnings.push({ message, ...meta }),
    );
    reporter.check([{ id: 'c1', name: 'read', arguments: '"text"' }, { id: 'c2', name: 'read', arguments: '{"x":1}' }]);
    await expect(reporter.flush()).resolves.toBeUndefined();
    expect(attempted).toEqual(['c2']);
    expect(warnings).toEqual([{ message: 'could not report an early tool call; it starts with the final answer instead', toolCallId: 'c2', error: 'Error: no server' }]);
  });
});
