import { PassThrough } from 'node:stream';
import { AgentClientError, type AgentClient } from '../../client/agent-client';
import { runAgentctl, type CliIo } from '../../cli/cli';
import type { Terminal } from '../../cli/command';
import type { RunPendingInputs } from '../../client/run-tree';
import type { PendingInputs, RunEvent } from '../../contracts';

const at = '2025-01-01T00:00:00.000Z';
const approval = { toolCallId: 'call_0_0', name: 'add', args: { a: 1, b: 2 }, turn: 0, requestedAt: at };
const questionsItem = {
  kind: 'questions',
  id: 'prefs',
  questions: [{ id: 'color', prompt: 'Colour?', options: [{ id: 'red', label: 'Red' }, { id: 'blue', label: 'Blue' }] }],
};
const withAwait: RunPendingInputs = { approvals: [], await: { awaitId: 'await-1', items: [{ id: 'prefs', kind: 'questions', answered: false, item: questionsItem }] }, tree: [] };
const cost = { iterations: { used: 1 }, toolCalls: { used: 1 }, consecutiveFailures: { used: 0 }, timeMs: { used: 5 }, tokens: { used: 0 }, modelCalls: { used: 0 }, elapsedMs: 5 };

function fakeAgents() {
  return {
    // A worker polls the run's task queue: reads ask the run.
    workerPresence: jest.fn(async () => ({ taskQueue: 'q', polled: true, lastSeen: at })),
    pendingInputs: jest.fn(async (): Promise<RunPendingInputs> => ({ approvals: [approval], tree: [] })),
    decide: jest.fn(async (): Promise<PendingInputs> => ({ approvals: [] })),
    answer: jest.fn(async (): Promise<PendingInputs> => ({ approvals: [] })),
    events: jest.fn(async () => ({ events: [] as RunEvent[], nextAfterSeq: 0, status: 'running' })),
    follow: jest.fn(async function* (): AsyncGenerator<RunEvent> {}),
    result: jest.fn(async () => ({ status: 'completed', iterations: 1, cost, sessionState: { watchlist: ['AAPL'] }, final: { text: 'done' } })),
  };
}

async function cli(argv: string[], agents = fakeAgents(), terminal?: Terminal) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: CliIo = {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    ...(terminal ? { terminal } : {}),
    connect: async () => ({ agents: agents as unknown as AgentClient, close: async () => undefined }),
  };
  const code = await runAgentctl(argv, io);
  return { code, stdout, stderr, agents };
}

/** A terminal whose stdin is `input` (a pipe, unless `isTTY`); prompts land in `stdout` too. */
function pipe(input: string, isTTY = false): Terminal & { prompts: string[] } {
  const stream = new PassThrough();
  if (!isTTY) stream.end(input);
  const prompts: string[] = [];
  return { input: stream, isTTY, prompt: (text) => prompts.push(text), prompts };
}

describe('pending and decisions', () => {
  it('pending --json prints the pending inputs', async () => {
    const r = await cli(['pending', 'r1', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.join(''))).toEqual({ approvals: [approval], tree: [] });
  });

  it.each([
    [['approve', 'r1', '--call', 'c1', '--always', '--by', 'ann'], { decision: 'approve', toolCallId: 'c1', always: true, by: 'ann' }],
    [['reject', 'r1', '--call', 'c1', '--reason', 'no'], { decision: 'reject', toolCallId: 'c1', reason: 'no' }],
    [['edit', 'r1', '--call', 'c1', '--args', '{"a":3}'], { decision: 'edit', toolCallId: 'c1', args: { a: 3 } }],
    [['replace', 'r1', '--call', 'c1', '--tool', 'echo', '--args', '{"text":"x"}'], { decision: 'replace', toolCallId: 'c1', name: 'echo', args: { text: 'x' } }],
  ])('%j decides %j', async (argv, decision) => {
    const r = await cli(argv);
    expect(r.code).toBe(0);
    expect(r.agents.decide).toHaveBeenCalledWith('r1', decision);
    expect(r.stdout[1]).toBe('nothing else waits');
  });

  it.each([
    [['approve', 'r1'], /missing --call/],
    [['edit', 'r1', '--call', 'c1'], /missing --args/],
    [['edit', 'r1', '--call', 'c1', '--args', '{x'], /--args: invalid JSON/],
    [['replace', 'r1', '--call', 'c1', '--args', '{}'], /missing --tool/],
    [['answer', 'r1', '--item', 'prefs'], /give the answer/],
    [['answer', 'r1', '--item', 'prefs', '--text', 'x', '--result', 'a=1'], /give one kind of answer/],
    [['answer', 'r1', '--item', 'city', '--text', 'x', '--fields', '[1]'], /--fields: /],
    [['interactive', 'r1', '--json'], /no --json mode/],
  ])('%j exits 2 before connecting', async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.stderr[0]).toMatch(message);
    expect(r.agents.pendingInputs).not.toHaveBeenCalled();
  });

  it("a decision the run refuses exits 5 with the run's message", async () => {
    const agents = fakeAgents();
    agents.decide.mockRejectedValue(new AgentClientError('rejected', 'no call c9 waits for a decision; waiting: call_0_0'));
    const r = await cli(['approve', 'r1', '--call', 'c9'], agents);
    expect(r).toMatchObject({ code: 5, stderr: ['agentctl: no call c9 waits for a decision; waiting: call_0_0'] });
  });
});

describe('answer', () => {
  it('reads the item kind from the run and sends the answer', async () => {
    const agents = fakeAgents();
    agents.pendingInputs.mockResolvedValue(withAwait);
    const r = await cli(['answer', 'r1', '--item', 'prefs', '--choose', 'blue'], agents);
    expect(r.code).toBe(0);
    expect(agents.answer).toHaveBeenCalledWith('r1', { kind: 'questions', itemId: 'prefs', answers: { color: ['blue'] } });
    expect(r.stdout).toEqual(['answered prefs on r1', 'nothing else waits']);
  });

  it('flags of another kind exit 2; an unknown item exits 5', async () => {
    const agents = fakeAgents();
    agents.pendingInputs.mockResolvedValue(withAwait);
    expect((await cli(['answer', 'r1', '--item', 'prefs', '--text', 'hi'], agents)).stderr).toEqual([
      'agentctl: item "prefs" is a questions item: answer it with --choose',
    ]);
    const unknown = await cli(['answer', 'r1', '--item', 'nope', '--text', 'hi'], agents);
    expect(unknown).toMatchObject({ code: 5, stderr: ['agentctl: no await item "nope"; items: prefs'] });
    expect(agents.answer).not.toHaveBeenCalled();
  });
});

describe('interactive', () => {
  const requested: RunEvent = { seq: 1, at, type: 'approval_requested', turn: 0, toolCallId: 'call_0_0', name: 'add', args: { a: 1, b: 2 } };

  it('prompts for a pending call, asks again after a refusal, and prints the result', async () => {
    const agents = fakeAgents();
    agents.events.mockResolvedValueOnce({ events: [requested], nextAfterSeq: 1, status: 'awaiting' });
    agents.pendingInputs.mockResolvedValueOnce({ approvals: [approval], tree: [] }).mockResolvedValueOnce({ approvals: [approval], tree: [] }).mockResolvedValue({ approvals: [], tree: [] });
    agents.decide.mockRejectedValueOnce(new AgentClientError('rejected', 'arguments do not match add: a: expected number'));
    agents.follow.mockImplementation(async function* () {
      yield { seq: 2, at, type: 'approval_decided', toolCallId: 'call_0_0', decision: 'approve' } as RunEvent;
    });
    const terminal = pipe('e\n{"a":"x","b":1}\na\n');
    const r = await cli(['attach', 'r1', '--by', 'ann'], agents, terminal);
    expect(r.code).toBe(0);
    expect(agents.decide.mock.calls).toEqual([
      ['r1', { decision: 'edit', toolCallId: 'call_0_0', args: { a: 'x', b: 1 }, by: 'ann' }],
      ['r1', { decision: 'approve', toolCallId: 'call_0_0', always: false, by: 'ann' }],
    ]);
    expect(agents.follow).toHaveBeenCalledWith('r1', { afterSeq: 1 });
    expect(r.stdout).toContain('the run refused: arguments do not match add: a: expected number');
    expect(r.stdout.slice(-3)).toEqual(['result: completed: done', expect.stringMatching(/^iterations: 1; /), 'session state: {"watchlist":["AAPL"]}']);
    expect(terminal.prompts).toEqual(['[a]pprove / [A]lways / [r]eject / [e]dit > ', 'arguments for add (JSON) > ', '[a]pprove / [A]lways / [r]eject / [e]dit > ']);
  });

  it('end of input at a prompt detaches without deciding (exit 0)', async () => {
    const r = await cli(['interactive', 'r1', '--after', '4'], fakeAgents(), pipe(''));
    expect(r.code).toBe(0);
    expect(r.agents.decide).not.toHaveBeenCalled();
    expect(r.stdout.slice(-2)).toEqual(['detached from r1 at event #4; the run goes on.', 're-attach: agentctl interactive r1 --after 4']);
    expect(r.agents.result).not.toHaveBeenCalled();
  });

  it('Ctrl-D on a terminal detaches while following', async () => {
    const agents = fakeAgents();
    agents.pendingInputs.mockResolvedValue({ approvals: [], tree: [] });
    agents.follow.mockImplementation(async function* () {
      await new Promise(() => undefined);
    });
    const terminal = pipe('', true);
    const done = cli(['interactive', 'r1'], agents, terminal);
    setTimeout(() => (terminal.input as PassThrough).end(), 10);
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout.at(-1)).toBe('re-attach: agentctl interactive r1 --after 0');
  });

  it('without a stdin it is a usage error', async () => {
    expect((await cli(['interactive', 'r1'])).code).toBe(2);
  });
});
