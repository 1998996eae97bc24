import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClientError, type AgentClient } from '../../client/agent-client';
import { runAgentctl, type CliIo } from '../../cli/cli';
import type { TemporalConfig } from '../../config/temporal';
import { testTempDir } from '../support/temp-dir';

/** The AgentClient methods the CLI calls, as jest mocks. */
function fakeAgents() {
  return {
    start: jest.fn(async () => ({ workflowId: 'run-1', runId: 'r' })),
    confirmStarted: jest.fn(async () => 'running' as const),
    status: jest.fn(),
    result: jest.fn(),
    events: jest.fn(),
    follow: jest.fn(),
    pause: jest.fn(async () => ({ status: 'paused' as const, point: 'after_tool' as const, turn: 0, historyLength: 16 })),
    resume: jest.fn(),
    kill: jest.fn(),
    intervene: jest.fn(async () => ({ id: 1, kind: 'inject_message', state: 'queued' as const })),
    setBudget: jest.fn(),
    signal: jest.fn(async () => undefined),
    client: { workflowService: { listWorkflowExecutions: jest.fn() }, options: { namespace: 'default' } },
    taskQueue: 'agents-q',
  };
}

async function cli(argv: string[], options: { env?: NodeJS.ProcessEnv; agents?: ReturnType<typeof fakeAgents> } = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const agents = options.agents ?? fakeAgents();
  const configs: TemporalConfig[] = [];
  const connectEnvs: NodeJS.ProcessEnv[] = [];
  const close = jest.fn(async () => undefined);
  const io: CliIo = {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: options.env ?? {},
    connect: async (config, env) => {
      configs.push(config);
      connectEnvs.push(env);
      return { agents: agents as unknown as AgentClient, close };
    },
  };
  const code = await runAgentctl(argv, io);
  return { code, stdout, stderr, agents, configs, connectEnvs, close };
}

describe('help', () => {
  it('--help lists the commands and exits 0 without connecting', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.join('\n')).toMatch(/usage: agentctl <command>/);
    expect(r.stdout.join('\n')).toMatch(/breakpoint/);
    expect(r.configs).toHaveLength(0);
  });

  it.each([[['help', 'pause']], [['pause', '--help']]])('%j prints the command usage', async (argv) => {
    const r = await cli(argv);
    expect(r.code).toBe(0);
    expect(r.stdout.join('\n')).toMatch(/usage: agentctl pause RUN/);
    expect(r.stdout.join('\n')).toMatch(/--timeout MS/);
  });
});

describe('usage errors exit 2 with one line naming what was wrong, before connecting', () => {
  const cases: [string, string[], RegExp][] = [
    ['no command', [], /missing command/],
    ['unknown command', ['frob'], /unknown command 'frob'/],
    ['help for an unknown command', ['help', 'frob'], /unknown command 'frob'/],
    ['unknown flag', ['status', 'r1', '--bogus'], /unknown option '--bogus'/],
    ['missing run id', ['status'], /missing RUN/],
    ['invalid JSON', ['edit-call', 'r1', '--call', 'c1', '--args', '{bad'], /--args: invalid JSON/],
    ['invalid status', ['list', '--status', 'sleeping'], /--status: 'sleeping' is not a run status; use one of running, pausing, paused/],
    ['invalid limit', ['list', '--limit', 'ten'], /--limit must be an integer/],
    ['invalid point', ['breakpoint', 'r1', '--point', 'nowhere'], /--point: 'nowhere' is not a point/],
    ['--once with --clear', ['breakpoint', 'r1', '--point', 'before_tool', '--clear', '--once'], /--once/],
    ['invalid role', ['inject', 'r1', '--content', 'x', '--role', 'robot'], /--role must be user or system/],
    ['empty content', ['system-prompt', 'r1', '--content', ''], /--content: /],
    ['no budget', ['budget', 'r1'], /name at least one budget/],
    ['zero budget', ['budget', 'r1', '--max-tool-calls', '0'], /--max-tool-calls must be an integer >= 1/],
    ['--timeout with --signal', ['pause', 'r1', '--signal', '--timeout', '100'], /--timeout applies to the update only/],
    ['timeout too long', ['pause', 'r1', '--timeout', '99999999'], /--timeout: /],
    ['start without a message', ['start', '--agent', 'scripted'], /missing --message/],
    ['start without an agent', ['start', '--message', 'hi'], /missing --agent/],
    ['bad policy', ['start', '--agent', 'a', '--message', 'hi', '--policy', '{"maxToolCalls":-1}'], /--policy: maxToolCalls: /],
    ['unknown policy field', ['start', '--agent', 'a', '--message', 'hi', '--policy', '{"maxToolcalls":1}'], /--policy: /],
    ['session state not an object', ['start', '--agent', 'a', '--message', 'hi', '--session-state', '[1]'], /--session-state: /],
    ['both planner options and script', ['start', '--agent', 'a', '--message', 'hi', '--planner-options', '{}', '--script', 'x.json'], /not both/],
    ['missing script file', ['start', '--agent', 'a', '--message', 'hi', '--script', '/nonexistent/x.json'], /--script: cannot read/],
  ];

  it.each(cases)('%s', async (_name, argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(/^agentctl: /);
    expect(r.stderr[0]).toMatch(message);
    expect(r.configs).toHaveLength(0);
  });

  it('half a TLS key pair in the environment', async () => {
    const r = await cli(['status', 'r1'], { env: { TEMPORAL_TLS_CLIENT_CERT_PATH: __filename } });
    expect(r.code).toBe(2);
    expect(r.stderr[0]).toMatch(/TEMPORAL_TLS_CLIENT_KEY_PATH/);
  });
});

describe('commands call the client with validated requests', () => {
  it('connection comes from TEMPORAL_* and flags override it', async () => {
    const r = await cli(['--address', 'other:7233', 'pause', 'r1', '--task-queue', 'q2'], { env: { TEMPORAL_ADDRESS: 'env:7233', TEMPORAL_NAMESPACE: 'ns', TEMPORAL_TASK_QUEUE: 'q1' } });
    expect(r.code).toBe(0);
    expect(r.configs).toEqual([{ address: 'other:7233', namespace: 'ns', taskQueue: 'q2' }]);
    expect(r.close).toHaveBeenCalled();
  });

  it('pause uses the update and prints where it paused', async () => {
    const r = await cli(['pause', 'r1', '--reason', 'look', '--timeout', '1000']);
    expect(r.agents.pause).toHaveBeenCalledWith('r1', { reason: 'look', timeoutMs: 1000 });
    expect(r.stdout).toEqual(['paused r1 at after_tool, turn 0 (history length 16)']);
  });

  it('pause --signal sends the signal', async () => {
    const r = await cli(['pause', 'r1', '--signal']);
    expect(r.agents.signal).toHaveBeenCalledWith('r1', 'pause', {});
    expect(r.agents.pause).not.toHaveBeenCalled();
  });

  it('--json prints the answer as JSON', async () => {
    const r = await cli(['pause', 'r1', '--json']);
    expect(JSON.parse(r.stdout.join('\n'))).toEqual({ status: 'paused', point: 'after_tool', turn: 0, historyLength: 16 });
  });

  it.each([
    [['inject', 'r1', '--content', 'hi'], { kind: 'inject_message', role: 'user', content: 'hi' }],
    [['inject', 'r1', '--content', 'be brief', '--role', 'system'], { kind: 'inject_message', role: 'system', content: 'be brief' }],
    [['system-prompt', 'r1', '--content', 'new'], { kind: 'override_system_prompt', content: 'new' }],
    [['edit-call', 'r1', '--call', 'c1', '--args', '{"ms":5}'], { kind: 'edit_call', toolCallId: 'c1', args: { ms: 5 } }],
    [['drop-call', 'r1', '--call', 'c1'], { kind: 'drop_call', toolCallId: 'c1' }],
    [['block', 'r1', '--tool', 'sleep', '--reason', 'slow'], { kind: 'block_tool', name: 'sleep', reason: 'slow' }],
    [['unblock', 'r1', '--tool', 'sleep'], { kind: 'unblock_tool', name: 'sleep' }],
    [['refresh-tools', 'r1', '--toolset', 'files'], { kind: 'refresh_tools', toolset: 'files' }],
    [['refresh-tools', 'r1'], { kind: 'refresh_tools' }],
    [['breakpoint', 'r1', '--point', 'before_tool', '--tool', 'echo', '--once'], { kind: 'set_breakpoint', point: 'before_tool', tool: 'echo', once: true }],
    [['breakpoint', 'r1', '--point', 'after_llm', '--clear'], { kind: 'clear_breakpoint', point: 'after_llm' }],
  ])('%j sends %j', async (argv, intervention) => {
    const r = await cli(argv);
    expect(r.code).toBe(0);
    expect(r.agents.intervene).toHaveBeenCalledWith('r1', intervention);
  });

  it('budget sends only the caps given', async () => {
    const agents = fakeAgents();
    agents.setBudget.mockResolvedValue({
      iterations: { used: 0 }, toolCalls: { used: 1, max: 5 }, consecutiveFailures: { used: 0 }, timeMs: { used: 1 }, tokens: { used: 0 }, modelCalls: { used: 0 }, elapsedMs: 1,
    });
    const r = await cli(['budget', 'r1', '--max-tool-calls', '5', '--time-budget-ms', '60000'], { agents });
    expect(agents.setBudget).toHaveBeenCalledWith('r1', { maxToolCalls: 5, timeBudgetMs: 60000 });
    expect(r.stdout[0]).toMatch(/tool calls 1\/5/);
  });

  it('start builds the run input from flags and a script file', async () => {
    const dir = testTempDir('agentctl-');
    const script = join(dir, 'script.json');
    writeFileSync(script, JSON.stringify([{ type: 'final', text: 'done' }]));
    const r = await cli(['start', '--agent', 'scripted', '--message', 'a', '--message', 'b', '--script', script, '--policy', '{"maxToolCalls":3}', '--id', 'my-run']);
    expect(r.code).toBe(0);
    expect(r.agents.start).toHaveBeenCalledWith(
      {
        agent: 'scripted',
        messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }],
        policy: { maxToolCalls: 3 },
        plannerOptions: { steps: [{ type: 'final', text: 'done' }] },
      },
      { workflowId: 'my-run' },
    );
    expect(r.agents.confirmStarted).toHaveBeenCalledWith('run-1', 10_000);
    expect(r.stdout).toEqual(['run-1']);
  });

  it('start --reuse-closed-id asks the client to take a closed run\'s id, and needs --id', async () => {
    const r = await cli(['start', '--agent', 'scripted', '--message', 'a', '--id', 'my-run', '--reuse-closed-id', '--confirm-ms', '0']);
    expect(r.code).toBe(0);
    expect(r.agents.start).toHaveBeenCalledWith({ agent: 'scripted', messages: [{ role: 'user', content: 'a' }] }, { workflowId: 'my-run', reuseClosedId: true });
    const without = await cli(['start', '--agent', 'scripted', '--message', 'a', '--reuse-closed-id']);
    expect(without.code).toBe(2);
    expect(without.stderr.join('\n')).toMatch(/--reuse-closed-id needs --id/);
    expect(without.agents.start).not.toHaveBeenCalled();
  });

  it('list passes an escaped visibility query and stops at --limit', async () => {
    const agents = fakeAgents();
    const seen: unknown[] = [];
    agents.client.workflowService.listWorkflowExecutions.mockImplementation(async (request: unknown) => {
      seen.push(request);
      return { executions: [] };
    });
    const r = await cli(['list', '--agent', "o'brien", '--status', 'paused', '--limit', '3', '--json'], { agents });
    expect(r.code).toBe(0);
    expect(seen).toEqual([{ namespace: 'default', query: "WorkflowType = 'agentRun' AND AgentName = 'o\\'brien' AND AgentStatus = 'paused' AND ExecutionStatus = 'Running'", pageSize: 3 }]);
    expect(JSON.parse(r.stdout[0] ?? '')).toEqual([]);
  });

  it('list --tenant filters by AgentTenant; start --tenant starts the run under it; a bad id is a usage error naming --tenant', async () => {
    const agents = fakeAgents();
    const seen: unknown[] = [];
    agents.client.workflowService.listWorkflowExecutions.mockImplementation(async (request: unknown) => {
      seen.push(request);
      return { executions: [] };
    });
    expect((await cli(['list', '--tenant', 'acme', '--json'], { agents })).code).toBe(0);
    expect(seen).toEqual([{ namespace: 'default', query: "WorkflowType = 'agentRun' AND AgentTenant = 'acme'", pageSize: 50 }]);
    const started = await cli(['start', '--agent', 'scripted', '--message', 'a', '--tenant', 'acme', '--confirm-ms', '0']);
    expect(started.code).toBe(0);
    expect(started.agents.start).toHaveBeenCalledWith({ agent: 'scripted', messages: [{ role: 'user', content: 'a' }], tenant: 'acme' }, {});
    const bad = await cli(['start', '--agent', 'scripted', '--message', 'a', '--tenant', "x' OR 'a'='a"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.join('\n')).toMatch(/--tenant: a tenant id is letters/);
    expect(bad.agents.start).not.toHaveBeenCalled();
  });
});

// The CLI runs embedded too (an ops tool's own process, the tests): what it reads of its
// environment, and what it prints, go through its io, never the process's.
describe('the environment and the output are the io\'s', () => {
  const processEnv = { ...process.env };
  afterEach(() => {
    process.env = { ...processEnv };
  });

  it('connects with the io\'s environment, for its client options (encryption keys, tracing)', async () => {
    const env = { TEMPORAL_ADDRESS: '127.0.0.1:7999', DURABLE_AGENTS_ENCRYPTION_KEYS: 'k1:' + 'a'.repeat(64) };
    const r = await cli(['status', 'run-1'], { env });
    expect(r.configs[0]).toMatchObject({ address: '127.0.0.1:7999' });
    expect(r.connectEnvs).toEqual([env]);
  });

  it('replay and fork take DURABLE_AGENTS_WORKFLOWS from the io\'s environment, not the process\'s', async () => {
    process.env.DURABLE_AGENTS_WORKFLOWS = join(tmpdir(), 'from-the-process.ts');
    for (const argv of [['replay', 'run-1'], ['fork', 'run-1', '--to-turn', '1']]) {
      const fromIo = await cli(argv, { env: { DURABLE_AGENTS_WORKFLOWS: 'no/such/workflows.ts' } });
      expect(fromIo).toMatchObject({ code: 2, stderr: ['agentctl: --workflows no/such/workflows.ts: no such file'] });
      const without = await cli(argv, { env: {} });
      expect(without.code).toBe(2);
      expect(without.stderr[0]).toMatch(/needs your workflows module: --workflows PATH \(or DURABLE_AGENTS_WORKFLOWS\)$/);
    }
  });

  it('start says on the io\'s stderr that no worker picked the run up', async () => {
    const agents = fakeAgents();
    agents.confirmStarted.mockImplementation(async () => 'not_picked_up' as never);
    const written = jest.spyOn(process.stderr, 'write');
    try {
      const r = await cli(['start', '--agent', 'scripted', '--message', 'hi', '--confirm-ms', '50'], { agents });
      expect(r.code).toBe(0);
      expect(r.stdout).toEqual(['run-1']);
      expect(r.stderr).toEqual(['agentctl: no worker has started run run-1 within 50 ms; it stays queued on task queue agents-q']);
      expect(written).not.toHaveBeenCalled();
    } finally {
      written.mockRestore();
    }
  });
});

describe('client errors map to exit codes', () => {
  it.each([
    [new AgentClientError('run_not_found', 'no run with id r1'), 3],
    [new AgentClientError('run_ended', 'run r1 has ended (completed)'), 4],
    [new AgentClientError('rejected', 'the run is not paused'), 5],
    [new AgentClientError('invalid_input', 'invalid run input: agent: too small'), 2],
    [new Error('14 UNAVAILABLE: connection refused\nmore detail'), 1],
  ])('%s exits %i with its message on one line', async (error, code) => {
    const agents = fakeAgents();
    agents.resume.mockRejectedValue(error);
    const r = await cli(['resume', 'r1'], { agents });
    expect(r.code).toBe(code);
    expect(r.stderr).toEqual([`agentctl: ${error.message.replace(/\n/g, ' ')}`]);
    expect(r.close).toHaveBeenCalled();
  });
});

describe('session', () => {
  it.each([
    [['session'], 'missing subcommand; use one of open, send, state, events, list, close, queue, schedule, schedules, schedule-show, schedule-pause, schedule-unpause, schedule-trigger, schedule-delete'],
    [['session', 'join', 's1'], "unknown session subcommand 'join'; use one of open, send, state, events, list, close, queue, schedule, schedules, schedule-show, schedule-pause, schedule-unpause, schedule-trigger, schedule-delete"],
    [['session', 'open', 's1'], 'missing --agent'],
    [['session', 'send'], "missing SESSION; use 'session send SESSION'"],
    [['session', 'send', 's1'], 'missing --message'],
    [['session', 'state', 's1', '--follow'], "--follow is not an option of 'session state'"],
    [['session', 'list', 's1'], "unexpected argument 's1'"],
    [['session', 'schedule', 's1', '--cron', '@daily', '--message', 'hi'], 'missing --name'],
    [['session', 'schedule', 's1', '--name', 'daily', '--cron', '@daily'], 'missing --message'],
    [['session', 'schedule', 's1', '--name', 'daily', '--cron', '@daily', '--message', 'hi', '--when-busy', 'later'], "--when-busy: expected one of enqueue, reject, interrupt, rollback, steer, got 'later'"],
    [['session', 'schedule-pause', 's1', '--name', 'daily', '--cron', '@daily'], "--cron is not an option of 'session schedule-pause'"],
    [['session', 'send', 's1', '--message', 'hi', '--name', 'daily'], "--name is not an option of 'session send'"],
  ])('%j exits 2 without connecting: %s', async (argv, message) => {
    const r = await cli(argv);
    expect(r).toMatchObject({ code: 2, stderr: [`agentctl: ${message}`] });
    expect(r.configs).toEqual([]);
  });
});
