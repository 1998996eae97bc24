import { openChildren } from '../../workflows/calls/child-approval-rules';

describe('openChildren', () => {
  it('names the sub-agent runs still running, in the order they started', () => {
    const child = (toolCallId: string, status: 'running' | 'completed' | 'failed' | 'terminated') => ({ toolCallId, workflowId: `sub-r/${toolCallId}`, agent: 'a', turn: 0, status });
    expect(openChildren([child('a', 'completed'), child('b', 'running'), child('c', 'terminated'), child('d', 'running'), child('e', 'failed')])).toEqual(['sub-r/b', 'sub-r/d']);
  });

  it('names none when no child runs', () => {
    expect(openChildren([])).toEqual([]);
  });
});
