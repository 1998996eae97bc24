import type { ToolOutput, ToolRequest, WrittenOutput } from '../../contracts/tools';
import { withCallGraph } from '../../workflows/state/call-graph';
import {
  allAnswered,
  decideCall,
  graphSchedule,
  lostMessage,
  mayConsider,
  pathWon,
  recordClosed,
  recordEnded,
  recordStarted,
  settleAlternative,
  type GraphSchedule,
} from '../../workflows/calls/call-schedule';
import { closedOutput, errorOutput, okOutput } from '../../workflows/kernel/outputs';

const call = (id: string, dependsOn?: string[], outputPath?: string) => ({ id, name: `tool_${id}`, args: {}, ...(dependsOn ? { dependsOn } : {}), ...(outputPath ? { outputPath } : {}) });

function plan(...calls: ReturnType<typeof call>[]): ToolRequest[] {
  return withCallGraph(
    calls,
    calls.map((c) => c.id),
    3,
  );
}

const ok = (r: ToolRequest, result: unknown = `${r.toolCallId} done`): ToolOutput => okOutput(r, { result: result as never, resultBytes: 10, telemetry: { durationMs: 5 } });
const failedWith = (r: ToolRequest, message: string): ToolOutput => errorOutput(r, { type: 'tool_failed', message }, undefined, 5);

/** One scan of the driver: closes what must be closed, starts what may start; answers what it did, in order. */
function scan(s: GraphSchedule, opts: { cancelled?: boolean; written?: Record<string, WrittenOutput> } = {}): string[] {
  const did: string[] = [];
  for (const r of s.requests) {
    if (!mayConsider(s, r)) continue;
    const decision = decideCall(s, r, opts.cancelled ?? false, (path) => opts.written?.[path]);
    if (decision.kind === 'wait') continue;
    if (decision.kind === 'close') {
      recordClosed(s, r, closedOutput(r, decision.type, decision.message));
      did.push(`close ${r.toolCallId} ${decision.type}: ${decision.message}`);
      continue;
    }
    recordStarted(s, r);
    did.push(`run ${r.toolCallId}${decision.dependencies.length ? ` with ${decision.dependencies.map((d) => `${d.toolCallId}<-${d.fromToolCallId}`).join(',')}` : ''}`);
  }
  return did;
}

/** A started call ends: its output settles, is recorded, and may win its path. */
function end(s: GraphSchedule, id: string, output: (r: ToolRequest) => ToolOutput) {
  const r = s.byId.get(id)!;
  const settled = settleAlternative(s, r, output(r));
  recordEnded(s, r, settled);
  return { settled, won: pathWon(s, r, settled) };
}

describe('the scheduler of a dependency-aware turn (workflows/calls/call-schedule.ts)', () => {
  it('starts ready calls in plan order, and a dependent once its dependency succeeded, with its output', () => {
    const s = graphSchedule(plan(call('fetch'), call('summarize', ['fetch']), call('lookup')), true);
    expect(scan(s)).toEqual(['run fetch', 'run lookup']);
    expect(scan(s)).toEqual([]);
    end(s, 'fetch', ok);
    expect(scan(s)).toEqual(['run summarize with fetch<-fetch']);
    end(s, 'lookup', ok);
    end(s, 'summarize', ok);
    expect(allAnswered(s)).toBe(true);
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
    expect(scan(s)).toEqual(['close b dependency_failed: not run: it depends on a (tool_a), which ended with tool_failed: boom']);
    // The driver scans again at once when a scan answered a call: c now sees b's answer.
    expect(scan(s)).toEqual(['close c dependency_failed: not run: it depends on b (tool_b), which ended with dependency_failed: not run: it depends on a (tool_a), which ended with tool_failed: boom']);
    expect(allAnswered(s)).toBe(true);
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
    expect(lostMessage(s, s.byId.get('slow')!)).toBe('cancelled: its alternative fast wrote output path answer first');
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
    expect(lostMessage(s, s.byId.get('b')!)).toBe('cancelled: its alternative a wrote output path out first');
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
