import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Checkpoint } from '../../history/checkpoints';
import { runResultSchema } from '../../contracts';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { agentSuite } from '../support/agent-suite';
import { lines, runAgentctl, testWorkflowCodeArgs } from '../support/agentctl-cli';
import { agentctlNodeArgs } from '../support/agentctl-build';
import { testWorkflowsPath } from '../support/test-env';
import { testTempDir } from '../support/temp-dir';

const suite = agentSuite('agentctl-rewind');
const agentctl = (...args: string[]) => runAgentctl(suite, args);

/** agentctl as a subprocess that must exit on its own within `ms`; SIGKILL otherwise (a command that ignores SIGTERM). */
function agentctlWithin(ms: number, ...args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [...agentctlNodeArgs(), ...args],
      { env: { ...process.env, TEMPORAL_ADDRESS: suite.env.address, TEMPORAL_NAMESPACE: suite.env.namespace ?? 'default', TEMPORAL_TASK_QUEUE: suite.taskQueue }, timeout: ms, killSignal: 'SIGKILL' },
      (_error, _stdout, stderr) => done({ code: child.exitCode, signal: child.signalCode, stderr, ms: Date.now() - started }),
    );
  });
}
/** A finished run of three planner turns: echo, add, final. */
let workflowId: string;
let firstRunId: string;

beforeAll(async () => {
  const started = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'one' } }), callStep({ name: 'add', args: { a: 1, b: 2 } }), finalStep('three turns')]));
  ({ workflowId, runId: firstRunId } = started);
  await suite.agents.result(workflowId);
});

describe('agentctl checkpoints, rewind, history export and replay', () => {
  it('checkpoints lists a boundary per turn with what the next turn did', async () => {
    const [text, json] = await Promise.all([agentctl('checkpoints', workflowId), agentctl('checkpoints', workflowId, '--json')]);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    const rows = lines(text.stdout);
    expect(rows[0]).toMatch(/^turn +event +time +model calls +tool calls +signals +updates$/);
    expect(rows.slice(1).map((r) => r.trim().split(/\s+/)[0])).toEqual(['0', '1', '2']);
    expect(rows[1]).toMatch(/ echo +- +-$/);
    expect(rows[2]).toMatch(/ add +- +-$/);

    expect(json.code).toBe(0);
    const checkpoints = JSON.parse(json.stdout) as Checkpoint[];
    expect(checkpoints.map((c) => [c.turn, c.summary.toolCalls])).toEqual([[0, ['echo']], [1, ['add']], [2, []]]);
    expect(checkpoints.every((c) => c.eventId > 0 && !Number.isNaN(Date.parse(c.time)))).toBe(true);
  });

  it('history export writes a file that replays; an altered copy is reported as nondeterministic (exit 6)', async () => {
    const dir = testTempDir('agentctl-rewind-');
    const file = join(dir, 'history.json');
    const exported = await agentctl('history', 'export', workflowId, '--out', file);
    expect(exported).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^wrote \\d+ events of ${workflowId} to `)) });

    const json = JSON.parse(readFileSync(file, 'utf8')) as { events: { activityTaskScheduledEventAttributes?: { activityType: { name: string } } }[] };
    const scheduled = json.events.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
    expect(scheduled?.activityType.name).toBe('scripted/echo');
    if (scheduled) scheduled.activityType.name = 'scripted/add';
    const altered = join(dir, 'altered.json');
    writeFileSync(altered, JSON.stringify(json));

    const [ok, bad] = await Promise.all([agentctl('replay', file, '--workflows', testWorkflowsPath), agentctl('replay', altered, ...testWorkflowCodeArgs())]);
    expect(ok).toMatchObject({ code: 0, stdout: expect.stringMatching(/^replayed \d+ events: deterministic\n$/) });
    expect(ok.stderr).toMatch(/^replaying \d+ events of .*history\.json against .*workflows\.ts/);
    expect(bad.code).toBe(6);
    // The altered history against the bundle the workers load (--workflow-bundle), when global setup built one.
    expect(lines(bad.stderr)).toEqual([expect.stringMatching(/^replaying \d+ events of .*altered\.json against /)]);
    const [problem, detail] = lines(bad.stdout);
    expect(problem).toBe('nondeterministic: the history scheduled activity "scripted/add" but the current code schedules "scripted/echo" at that point');
    expect(detail).toMatch(/^detail: .*Nondeterminism/i);
  });

  it('a history from before the support window is reported as such (exit 7), never as nondeterminism', async () => {
    const fixture = join(__dirname, '..', 'fixtures', 'outside-window', '0.8.0-basic.json');
    const r = await agentctl('replay', fixture, ...testWorkflowCodeArgs());
    expect(r.code).toBe(7);
    expect(r.stdout).toMatch(/^outside the support window: .*recorded by a release before 0\.9\.0 .*outside this version's support window \(≥ 0\.13\.0\); finish it on a worker running ≤ 0\.13\.x\n$/);
    expect(r.stdout).not.toMatch(/nondetermin/i);
  });

  it('rewind to a turn the run lacks exits 5 naming the turns there are', async () => {
    const r = await agentctl('rewind', workflowId, '--to-turn', '9');
    expect(r).toMatchObject({ code: 5, stdout: '' });
    expect(r.stderr).toBe(`agentctl: run ${workflowId} has no boundary after 9 turns in this execution; available: 0..2\n`);
  });

  it('fork of the closed run with an edit starts a new run from turn 1 that applies it; the original stays', async () => {
    const before = await suite.env.client.workflow.getHandle(workflowId).describe();
    const forkId = `${workflowId}-fork-cli`;
    const r = await agentctl('fork', workflowId, '--to-turn', '1', '--workflows', testWorkflowsPath, '--workflow-id', forkId, '--with', '{"kind":"edit_call","toolCallId":"call_1_0","args":{"a":40,"b":2}}');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(lines(r.stdout)).toEqual([
      expect.stringMatching(new RegExp(`^forked ${workflowId} at the boundary after turn 1 \\(event \\d+, `)),
      expect.stringMatching(new RegExp(`^new run: ${forkId} \\(run id \\S+\\)$`)),
      'corrections: 1, applied in the fork at their safe points',
    ]);
    const result = await suite.agents.result(forkId);
    expect(result.status).toBe('completed');
    expect(JSON.stringify(result.final?.structured)).toContain('"sum":42');
    expect((await suite.env.client.workflow.getHandle(workflowId).describe()).runId).toBe(before.runId);
  });

  it('fork --to-turn 0 prints why and exits 2 at once, leaving nothing open behind', async () => {
    const r = await agentctlWithin(30_000, 'fork', workflowId, '--to-turn', '0', '--workflows', testWorkflowsPath);
    expect(r).toMatchObject({ code: 2, signal: null });
    expect(r.stderr).toMatch(/^agentctl: a fork keeps at least one turn/);
  });

  it('rewind of a closed run with an edit of a call exits 5 before resetting anything, saying why', async () => {
    const before = await suite.env.client.workflow.getHandle(workflowId).describe();
    const r = await agentctl('rewind', workflowId, '--to-turn', '1', '--with', '{"kind":"edit_call","toolCallId":"call_1_0","args":{"a":1,"b":1}}');
    expect(r).toMatchObject({ code: 5, stdout: '' });
    expect(r.stderr).toContain(`run ${workflowId} has closed: edit_call call_1_0 cannot reach the rewound run before it plans its next turn`);
    expect((await suite.env.client.workflow.getHandle(workflowId).describe()).runId).toBe(before.runId);
  });

  it('rewind of a closed run with an injected message exits 5 before resetting anything: it could only arrive after the next turn was planned', async () => {
    const before = await suite.env.client.workflow.getHandle(workflowId).describe();
    const r = await agentctl('rewind', workflowId, '--to-turn', '2', '--inject', 'double-check the sum');
    expect(r).toMatchObject({ code: 5, stdout: '' });
    expect(r.stderr).toContain(`run ${workflowId} has closed: inject_message cannot reach the rewound run before it plans its next turn`);
    expect(r.stderr).toContain('Fork the run instead');
    expect((await suite.env.client.workflow.getHandle(workflowId).describe()).runId).toBe(before.runId);
  });

  it('rewind --to-turn 1 of the completed run continues under a new run id; result shows it completed again', async () => {
    const r = await agentctl('rewind', workflowId, '--to-turn', '1', '--reason', 'cli test');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const out = lines(r.stdout);
    expect(out[0]).toMatch(new RegExp(`^rewound ${workflowId} to the boundary after turn 1 \\(event \\d+, `));
    const newRunId = /^new run id: (\S+)$/.exec(out[1] ?? '')?.[1];
    expect(newRunId).toBeDefined();
    expect(newRunId).not.toBe(firstRunId);
    expect(out).toContain('later signals and updates: dropped (a clean rewind)');
    expect(out.at(-1)).toBe('corrections: none');

    const result = await agentctl('result', workflowId, '--json');
    expect(result.code).toBe(0);
    expect(runResultSchema.parse(JSON.parse(result.stdout))).toMatchObject({ status: 'completed', final: { text: 'three turns' } });
  });
});
