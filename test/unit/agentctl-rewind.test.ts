import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentClient } from '../../client/agent-client';
import { parseCommandArgs } from '../../cli/args';
import { runAgentctl, type CliIo } from '../../cli/cli';
import { rewindCommand, rewindCorrections, renderCheckpoints } from '../../cli/commands/rewind';
import { CheckpointError, type Checkpoint } from '../../history/checkpoints';
import { replayHistory } from '../../cli/replay';
import type { ReplayOutcome } from '../../worker/replay';
import { testTempDir } from '../support/temp-dir';

jest.mock('../../cli/replay', () => ({ replayHistory: jest.fn() }));
const replayMock = replayHistory as jest.MockedFunction<typeof replayHistory>;

const checkpoint = (turn: number, eventId: number, summary: Partial<Checkpoint['summary']> = {}): Checkpoint => ({
  turn,
  eventId,
  time: '2025-01-02T03:04:05.000Z',
  summary: { toolCalls: [], modelCalls: 0, signals: [], updates: [], ...summary },
});

function fakeAgents() {
  return {
    checkpoints: jest.fn(async () => [checkpoint(0, 4, { toolCalls: ['record', 'record'], signals: ['intervene'] }), checkpoint(1, 16, { updates: ['decideCall'] })]),
    rewind: jest.fn(async () => ({ runId: 'new-run', checkpoint: checkpoint(1, 16), corrections: 'none' as const })),
    exportHistory: jest.fn(async () => JSON.stringify({ events: [{ eventId: '1' }, { eventId: '2' }] })),
  };
}

async function cli(argv: string[], agents = fakeAgents()) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  let connects = 0;
  const io: CliIo = {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    connect: async () => {
      connects += 1;
      return { agents: agents as unknown as AgentClient, close: async () => undefined };
    },
  };
  const code = await runAgentctl(argv, io);
  return { code, stdout, stderr, agents, connects };
}

const rewindArgs = (...argv: string[]) => parseCommandArgs(['r1', ...argv], rewindCommand.options, rewindCommand.positionals);

describe('rewind corrections from --with and --inject', () => {
  it('parses each --with as an intervention, then each --inject as a user message', () => {
    const args = rewindArgs(
      '--with', '{"kind":"edit_call","toolCallId":"call_2_0","args":{"label":"fixed"}}',
      '--inject', 'use the fixed label',
      '--with', '{"kind":"drop_call","toolCallId":"call_3_0"}',
    );
    expect(rewindCorrections(args)).toEqual([
      { kind: 'edit_call', toolCallId: 'call_2_0', args: { label: 'fixed' } },
      { kind: 'drop_call', toolCallId: 'call_3_0', reason: 'dropped by operator' },
      { kind: 'inject_message', role: 'user', content: 'use the fixed label' },
    ]);
  });

  it('answers no corrections without the flags', () => {
    expect(rewindCorrections(rewindArgs('--to-turn', '1'))).toEqual([]);
  });

  it.each([
    ['invalid JSON', ['--with', '{"kind":'], /^--with: invalid JSON/],
    ['an unknown kind', ['--with', '{"kind":"teleport"}'], /^--with: kind: /],
    ['a missing field', ['--with', '{"kind":"edit_call","args":{}}'], /^--with: toolCallId: /],
    ['an empty call id', ['--with', '{"kind":"edit_call","toolCallId":"","args":{}}'], /^--with: toolCallId: /],
    ['the second of two, by number', ['--with', '{"kind":"unblock_tool","name":"x"}', '--with', '{"kind":"block_tool"}'], /^--with #2: name: /],
    ['an empty --inject', ['--inject', ''], /^--inject: /],
  ])('names the flag and field for %s', (_name, argv, message) => {
    expect(() => rewindCorrections(rewindArgs(...argv))).toThrow(message);
  });
});

describe('agentctl rewind', () => {
  it('sends the boundary, corrections, reapply, reason and run id', async () => {
    const r = await cli(['rewind', 'r1', '--to-turn', '1', '--inject', 'be careful', '--reapply', '--reason', 'bad call', '--run-id', 'old-run']);
    expect(r.code).toBe(0);
    expect(r.agents.rewind).toHaveBeenCalledWith('r1', {
      toTurn: 1,
      reapply: true,
      with: [{ kind: 'inject_message', role: 'user', content: 'be careful' }],
      reason: 'bad call',
      runId: 'old-run',
    });
    expect(r.stdout[0]).toBe('rewound r1 to the boundary after turn 1 (event 16, 2025-01-02T03:04:05.000Z)');
    expect(r.stdout[1]).toBe('new run id: new-run');
  });

  it('--to-turn 0 is a boundary; a clean rewind sends only the turn', async () => {
    const r = await cli(['rewind', 'r1', '--to-turn', '0']);
    expect(r.agents.rewind).toHaveBeenCalledWith('r1', { toTurn: 0 });
    expect(r.stdout).toContain('later signals and updates: dropped (a clean rewind)');
  });

  it('--json prints the answer with the workflow id', async () => {
    const r = await cli(['rewind', 'r1', '--to-turn', '1', '--json']);
    expect(JSON.parse(r.stdout.join(''))).toEqual({ workflowId: 'r1', runId: 'new-run', checkpoint: checkpoint(1, 16), corrections: 'none', reapply: false });
  });

  it.each([
    [['rewind', 'r1'], /missing --to-turn/],
    [['rewind', 'r1', '--to-turn=-1'], /--to-turn must be an integer >= 0/],
    [['rewind', 'r1', '--to-turn', '1', '--with', '{bad'], /--with: invalid JSON/],
  ])('%j exits 2 before connecting', async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.stderr[0]).toMatch(message);
    expect(r.connects).toBe(0);
  });

  it('a turn the run does not have exits 5 with the message; an invalid correction exits 2', async () => {
    const agents = fakeAgents();
    agents.rewind.mockRejectedValueOnce(new CheckpointError('no_such_turn', 'run r1 has no boundary after 9 turns in this execution; available: 0..3'));
    agents.rewind.mockRejectedValueOnce(new CheckpointError('invalid_input', 'correction 1 is invalid'));
    const missing = await cli(['rewind', 'r1', '--to-turn', '9'], agents);
    expect(missing).toMatchObject({ code: 5, stderr: ['agentctl: run r1 has no boundary after 9 turns in this execution; available: 0..3'] });
    expect((await cli(['rewind', 'r1', '--to-turn', '1'], agents)).code).toBe(2);
  });
});

describe('agentctl checkpoints', () => {
  it('prints a table of boundaries with what the next turn did', async () => {
    const r = await cli(['checkpoints', 'r1', '--run-id', 'x']);
    expect(r.agents.checkpoints).toHaveBeenCalledWith('r1', 'x');
    expect(r.stdout).toEqual([
      'turn  event  time                      model calls  tool calls  signals    updates',
      '   0      4  2025-01-02T03:04:05.000Z            0  record x2   intervene  -',
      '   1     16  2025-01-02T03:04:05.000Z            0  -           -          decideCall',
    ]);
  });

  it('says so when there are none', () => {
    expect(renderCheckpoints('r1', [])).toEqual(['no turn boundaries in this execution of r1']);
  });
});

describe('agentctl history export', () => {
  it('writes the JSON to stdout, or to --out FILE and says how many events', async () => {
    const toStdout = await cli(['history', 'export', 'r1']);
    expect(JSON.parse(toStdout.stdout.join('\n'))).toEqual({ events: [{ eventId: '1' }, { eventId: '2' }] });
    const file = join(testTempDir('agentctl-'), 'h.json');
    const toFile = await cli(['history', 'export', 'r1', '--out', file, '--run-id', 'old']);
    expect(toFile.agents.exportHistory).toHaveBeenCalledWith('r1', 'old');
    expect(toFile.stdout).toEqual([`wrote 2 events of r1 to ${file}`]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ events: [{ eventId: '1' }, { eventId: '2' }] });
  });

  it.each([
    [['history'], /missing subcommand; use 'history export RUN'/],
    [['history', 'show', 'r1'], /unknown history subcommand 'show'/],
    [['history', 'export'], /missing RUN/],
  ])('%j exits 2', async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.stderr[0]).toMatch(message);
  });

  it('help history shows the subcommand', async () => {
    const r = await cli(['help', 'history']);
    expect(r.stdout[0]).toBe('usage: agentctl history export RUN [options]');
  });
});

describe('agentctl replay', () => {
  const dir = testTempDir('agentctl-replay-');
  const historyFile = join(dir, 'run.json');
  writeFileSync(historyFile, JSON.stringify({ events: [{ eventId: '1' }] }));
  const workflows = join(dir, 'workflows.ts');
  writeFileSync(workflows, '// a workflows module\n');
  const withWorkflows = ['--workflows', workflows];

  beforeEach(() => replayMock.mockReset());

  it('replays a file without connecting; a deterministic history exits 0', async () => {
    replayMock.mockResolvedValue({ ok: true, events: 1 });
    const r = await cli(['replay', historyFile, ...withWorkflows]);
    expect(r).toMatchObject({ code: 0, connects: 0, stdout: ['replayed 1 events: deterministic'] });
    expect(r.stderr[0]).toMatch(/^replaying 1 events of .* against .*workflows\.ts/);
    expect(replayMock).toHaveBeenCalledWith({ events: [{ eventId: '1' }] }, { module: workflows }, expect.any(Function));
  });

  it('nondeterminism exits 6 with the plain words and the raw detail on one more line', async () => {
    const outcome: ReplayOutcome = { ok: false, kind: 'nondeterminism', problem: 'the history scheduled activity "echo" but …', detail: 'Nondeterminism error:\n  raw' };
    replayMock.mockResolvedValue(outcome);
    const r = await cli(['replay', historyFile, ...withWorkflows]);
    expect(r).toMatchObject({ code: 6, stdout: ['nondeterministic: the history scheduled activity "echo" but …', 'detail: Nondeterminism error: raw'] });
  });

  it('a history whose agent is not in the bundle exits 2 saying so, not "nondeterministic"', async () => {
    const problem = 'agent "notes" is not in this bundle (its agents: watchlist); replay against the workflows module that defines it';
    replayMock.mockResolvedValue({ ok: false, kind: 'unknown_agent', problem, detail: problem });
    const r = await cli(['replay', historyFile, ...withWorkflows]);
    expect(r).toMatchObject({ code: 2, stdout: [] });
    expect(r.stderr[1]).toBe(`agentctl: ${problem}`);
  });

  it('without --workflows (or DURABLE_AGENTS_WORKFLOWS) exits 2 naming the option', async () => {
    const saved = process.env.DURABLE_AGENTS_WORKFLOWS;
    delete process.env.DURABLE_AGENTS_WORKFLOWS;
    try {
      const r = await cli(['replay', historyFile]);
      expect(r).toMatchObject({ code: 2, connects: 0 });
      expect(r.stderr[0]).toMatch(/--workflows PATH/);
    } finally {
      if (saved !== undefined) process.env.DURABLE_AGENTS_WORKFLOWS = saved;
    }
  });

  it('--workflow-bundle loads a bundle built before as it is, and says so', async () => {
    const bundle = join(dir, 'workflow-bundle.js');
    writeFileSync(bundle, 'globalThis.__webpack_module_cache__ = {};\n');
    replayMock.mockResolvedValue({ ok: true, events: 1 });
    const r = await cli(['replay', historyFile, '--workflow-bundle', bundle]);
    expect(r).toMatchObject({ code: 0, connects: 0, stdout: ['replayed 1 events: deterministic'] });
    expect(r.stderr[0]).toMatch(/against the bundle .*workflow-bundle\.js…$/);
    expect(replayMock).toHaveBeenCalledWith({ events: [{ eventId: '1' }] }, { bundle, code: 'globalThis.__webpack_module_cache__ = {};\n' }, expect.any(Function));
  });

  it.each([
    ['both --workflows and --workflow-bundle', () => [...withWorkflows, '--workflow-bundle', workflows], /--workflows and --workflow-bundle: give one/],
    ['a --workflow-bundle that does not exist', () => ['--workflow-bundle', join(dir, 'nope.js')], /--workflow-bundle .*nope\.js: no such file/],
    ['a workflows module given as --workflow-bundle', () => ['--workflow-bundle', workflows], /workflows\.ts: not a workflow bundle .*use --workflows/],
  ])('%s exits 2 naming what was wrong, before replaying', async (_what, options, message) => {
    const r = await cli(['replay', historyFile, ...options()]);
    expect(r).toMatchObject({ code: 2, connects: 0, stdout: [] });
    expect(r.stderr[0]).toMatch(message);
    expect(replayMock).not.toHaveBeenCalled();
  });

  it('another failure exits 1', async () => {
    replayMock.mockResolvedValue({ ok: false, kind: 'failure', problem: 'boom', detail: 'boom' });
    const r = await cli(['replay', historyFile, ...withWorkflows]);
    expect(r).toMatchObject({ code: 1, stderr: [expect.stringMatching(/^replaying/), 'agentctl: replay failed: boom'] });
  });

  it('exports the history of a run that is not a file', async () => {
    replayMock.mockResolvedValue({ ok: true, events: 2 });
    const r = await cli(['replay', 'r1', '--run-id', 'old', ...withWorkflows]);
    expect(r.code).toBe(0);
    expect(r.connects).toBe(1);
    expect(r.agents.exportHistory).toHaveBeenCalledWith('r1', 'old');
    expect(replayMock).toHaveBeenCalledWith({ events: [{ eventId: '1' }, { eventId: '2' }] }, { module: workflows }, expect.any(Function));
  });

  it.each([
    ['a file that is not JSON', () => { const f = join(dir, 'bad.json'); writeFileSync(f, '{'); return [f]; }, /bad\.json: invalid JSON/],
    ['a file without events', () => { const f = join(dir, 'empty.json'); writeFileSync(f, '{"events":[]}'); return [f]; }, /empty\.json: events: /],
    ['a missing .json file', () => [join(dir, 'nope.json')], /no such file/],
    ['--run-id with a file', () => [historyFile, '--run-id', 'x'], /--run-id applies to a run/],
  ])('%s exits 2 without connecting', async (_name, argv, message) => {
    const r = await cli(['replay', ...argv(), ...withWorkflows]);
    expect(r).toMatchObject({ code: 2, connects: 0 });
    expect(r.stderr[0]).toMatch(message);
    expect(replayMock).not.toHaveBeenCalled();
  });
});
