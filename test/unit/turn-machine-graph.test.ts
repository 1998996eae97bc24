import type { ToolOutput, ToolRequest, WrittenOutput } from '../../contracts/tools';
import { withCallGraph } from '../../workflows/state/call-graph';
import { cancelMessageOf, newTurn, settledOutput, type ToolTurnState } from '../../workflows/calls/turn-machine';
import { callEnded, scanTurn, turnAnswered } from '../../workflows/calls/turn-graph';
import { errorOutput, okOutput } from '../../workflows/kernel/outputs';

const call = (id: string, dependsOn?: string[], outputPath?: string) => ({ id, name: `tool_${id}`, args: {}, ...(dependsOn ? { dependsOn } : {}), ...(outputPath ? { outputPath } : {}) });

function plan(...calls: ReturnType<typeof call>[]): ToolRequest[] {
  return withCallGraph(
    calls,
    calls.map((c) => c.id),
    3,
  );
}

/** A dependency-aware turn of the plan: parallel calls, or one at a time. */
const graphSchedule = (requests: ToolRequest[], parallel: boolean): ToolTurnState => newTurn(requests, { parallel, allowed: requests.length });

const ok = (r: ToolRequest, result: unknown = `${r.toolCallId} done`): ToolOutput => okOutput(r, { result: result as never, resultBytes: 10, telemetry: { durationMs: 5 } });
const failedWith = (r: ToolRequest, message: string): ToolOutput => errorOutput(r, { type: 'tool_failed', message }, undefined, 5);

const rowOf = (t: ToolTurnState, id: string) => t.rows.find((r) => r.planned.toolCallId === id)!;

/** The machine's scan of the turn, as the driver would perform it, in order. */
function scan(t: ToolTurnState, opts: { cancelled?: boolean; written?: Record<string, WrittenOutput> } = {}): string[] {
  return scanTurn(t, { turnCancelled: opts.cancelled ?? false, cancelHint: undefined, writtenOutput: (path) => opts.written?.[path] }).map((a) => {
    const r = a.type === 'close' || a.type === 'start' ? a.row : undefined;
    if (a.type === 'close') return `close ${r!.planned.toolCallId} ${a.output.error!.type}: ${a.output.error!.message}`;
    if (a.type === 'start') return `run ${r!.planned.toolCallId}${r!.dependencies?.length ? ` with ${r!.dependencies.map((d) => `${d.toolCallId}<-${d.fromToolCallId}`).join(',')}` : ''}`;
    return a.type;
  });
}

/** A started call ends: its output settles, is recorded, and may win its path (the machine says what to write and whom to cancel). */
function end(t: ToolTurnState, id: string, output: (r: ToolRequest) => ToolOutput) {
  const row = rowOf(t, id);
  const settled = settledOutput(t, row, output(row.planned));
  const actions = callEnded(t, row, settled);
  const write = actions.find((a) => a.type === 'write_output');
  const won = write && write.type === 'write_output' ? { path: write.path, losers: actions.flatMap((a) => (a.type === 'cancel' ? [a.row.planned.toolCallId] : [])) } : undefined;
  return { settled, won };
}

const lostMessage = (t: ToolTurnState, r: ToolRequest): string | undefined => cancelMessageOf(t, rowOf(t, r.toolCallId));

describe('the turn machine: a dependency-aware turn (scanTurn, callEnded in workflows/calls/turn-graph.ts)', () => {
  it('starts ready calls in plan order, and a dependent once its dependency succeeded, with its output', () => {
    const s = graphSchedule(plan(call('fetch'), call('summarize', ['fetch']), call('lookup')), true);
    expect(scan(s)).toEqual(['run fetch', 'run lookup']);
    expect(scan(s)).toEqual([]);
    end(s, 'fetch', ok);
    expect(scan(s)).toEqual(['run summarize with fetch<-fetch']);
    end(s, 'lookup', ok);
    end(s, 'summarize', ok);
    expect(turnAnswered(s)).toBe(true);
  });

  it('a sequential run has one slot: the next ready call waits until the running one ends', () => {
    const s = graphSchedule(plan(call('a'), call('b'), call('c', ['a'])), false);
    expect(scan(s)).toEqual(['run a']);
    expect(scan(s)).toEqual([]);
    end(s, 'a', ok);
    expect(scan(s)).toEqual(['run b']);
    end(s, 'b', ok);
    expect(scan(s)).toEqual(['run c with a<-a']);
  });

  it('answers a call whose dependency failed without running it, and the calls that depend on it in turn', () => {
    // c comes first in plan order, so the scan that answers b has passed it already.
    const s = graphSchedule(plan(call('c', ['b']), call('a'), call('b', ['a'])), true);
    expect(scan(s)).toEqual(['run a']);
    end(s, 'a', (r) => failedWith(r, 'boom'));
    // A scan that answered a call scans again at once: c, earlier in the plan, now sees b's answer.
    expect(scan(s)).toEqual([
      'close b dependency_failed: not run: it depends on a (tool_a), which ended with tool_failed: boom',
      'close c dependency_failed: not run: it depends on b (tool_b), which ended with dependency_failed: not run: it depends on a (tool_a), which ended with tool_failed: boom',
    ]);
    expect(turnAnswered(s)).toBe(true);
  });

  it('answers the calls of a cycle or of an unknown dependency at the first scan', () => {
    const s = graphSchedule(plan(call('p', ['q']), call('q', ['p']), call('x', ['nope'])), true);
    expect(scan(s)).toEqual([
      'close p dependency_failed: not run: dependency cycle: p -> q -> p',
      'close q dependency_failed: not run: dependency cycle: p -> q -> p',
      'close x dependency_failed: not run: dependsOn names "nope", which is not a call of this plan',
    ]);
  });

  it('alternatives: the first success writes the path, the running ones lose and are cancelled, a late success is a conflict', () => {
    const s = graphSchedule(plan(call('fast', undefined, 'answer'), call('slow', undefined, 'answer'), call('use', ['slow'])), true);
    expect(scan(s)).toEqual(['run fast', 'run slow']);
    const first = end(s, 'fast', ok);
    expect(first.won).toEqual({ path: 'answer', losers: ['slow'] });
    expect(lostMessage(s, rowOf(s, 'slow').planned)).toBe('cancelled: its alternative fast wrote output path answer first');
    // The cancellation came too late: slow finished anyway.
    const late = end(s, 'slow', ok);
    expect(late.won).toBeUndefined();
    expect(late.settled.status).toBe('error');
    expect(late.settled.error).toEqual({ type: 'output_conflict', message: 'finished after its alternative fast had written output path answer; its result was not written' });
    // A call that depends on the losing alternative gets the winner's output.
    expect(scan(s)).toEqual(['run use with slow<-fast']);
  });

  it('an alternative not started yet when its path is won is answered without running', () => {
    const s = graphSchedule(plan(call('a', undefined, 'out'), call('b', undefined, 'out')), false);
    expect(scan(s)).toEqual(['run a']);
    expect(end(s, 'a', ok).won).toEqual({ path: 'out', losers: [] });
    expect(scan(s)).toEqual(['close b cancelled: not run: its alternative a already wrote output path out']);
    expect(lostMessage(s, rowOf(s, 'b').planned)).toBe('cancelled: its alternative a wrote output path out first');
  });

  it('a path written in an earlier turn is write-once, and a cancelled turn starts nothing', () => {
    const earlier = { out: { toolCallId: 'old', turn: 1, value: 1 } };
    const s = graphSchedule(plan(call('a', undefined, 'out'), call('b')), true);
    expect(scan(s, { written: earlier })).toEqual([
      'close a output_conflict: not run: output path out was already written by call old (turn 1); output paths are write-once',
      'run b',
    ]);
    const cancelled = graphSchedule(plan(call('a'), call('b', ['a'])), true);
    expect(scan(cancelled, { cancelled: true })).toEqual([
      'close a cancelled: not run: its turn was cancelled before it could start',
      'close b cancelled: not run: its turn was cancelled before it could start',
    ]);
  });
});
