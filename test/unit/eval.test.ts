import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OutsideSupportWindowError } from '../../workflows/versioning/support-window';
import { readRecording, RecordingError } from '../../testing/eval/recording';
import { canonicalJson, RecordedAnswers } from '../../testing/eval/recorded-tools';
import { RecordedHumans } from '../../testing/eval/human-harness';
import { humanInputs } from '../../testing/eval/human-inputs';
import { defaultPayloadConverter } from '@temporalio/common';
import { firstDivergence } from '../../testing/eval/compare';
import { formatEvalJunit, formatEvalTable, xmlText } from '../../testing/eval/reporters';
import { failedGates, summarize } from '../../testing/eval/summary';
import type { RunEvaluation } from '../../testing/eval/types';
import { xmlProblem } from '../support/well-formed-xml';
import { candidateInput, outputValidity } from '../../testing/eval/candidate-run';
import { scriptedAgent } from '../../examples/toolbox/agent';
import { watchlistLlmAgent, watchlistReportAgent } from '../../examples/watchlist/agent';
import type { RunResult } from '../../contracts';
import { agentsRecordingsRun, missingMcpServer } from '../../testing/eval/needed-agents';
import { createScriptedPlanner, defineAgent, defineAgentTool, mcpToolset } from '../../workflows';

const corpus = join(__dirname, '../histories/0.13.0');
const json = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

describe('reading a recording', () => {
  it('reads an LLM run: input, turns from the model answers, tool results, result', () => {
    const r = readRecording(json(join(corpus, 'llm-watchlist.json')), 'llm-watchlist.json');
    expect(r.input.agent).toBe('watchlist-llm');
    expect(r.steps).toEqual([
      { turn: 0, calls: [{ name: 'remove_from_watchlist', args: { symbols: ['TSLA'] } }] },
      { turn: 1, calls: [{ name: 'get_quote', args: { symbol: 'AAPL' } }, { name: 'get_quote', args: { symbol: 'NOPE!' } }] },
      { turn: 2, calls: [], text: 'Removed TSLA. AAPL is quoted.' },
    ]);
    expect(r.toolCalls.map((c) => [c.turn, c.name, c.outcome.kind])).toEqual([
      [0, 'remove_from_watchlist', 'ok'],
      [1, 'get_quote', 'ok'],
    ]);
    const removed = r.toolCalls[0]!.outcome;
    expect(removed.kind === 'ok' && removed.sessionStateChanges).toEqual({ watchlist: expect.any(Array) });
    expect(r.result?.final?.text).toBe('Removed TSLA. AAPL is quoted.');
    expect(r.ending).toBe('completed');
  });

  it('reads human decisions with the call they decided, and answers in order', () => {
    const approvals = readRecording(json(join(corpus, 'approvals.json')), 'approvals.json');
    expect(approvals.decisions.map((d) => [d.name, d.args, d.decision.decision])).toEqual([
      ['echo', { text: 'a' }, 'approve'],
      // A rejected call of the scripted planner never ran: the history knows only its id.
      [undefined, undefined, 'reject'],
      ['add', { a: 5, b: 5 }, 'edit'],
    ]);
    const answers = readRecording(json(join(corpus, 'await-answers.json')), 'await-answers.json');
    expect(answers.answers.map((a) => a.kind)).toEqual(['questions', 'questions', 'clarification']);
  });

  it("names its session's decisions: a steer (an injected message naming the session message), an interrupt and a rollback (the session's kill); an operator's own as before", () => {
    const signal = (signalName: string, payload: unknown) => ({ workflowExecutionSignaledEventAttributes: { signalName, input: { payloads: [defaultPayloadConverter.toPayload(payload)] } } });
    const steer = { kind: 'inject_message', role: 'user', content: 'also MSFT', messageId: 'm-2' };
    const operatorMessage = { kind: 'inject_message', role: 'user', content: 'be brief' };
    const interrupt = { reason: 'interrupted by session message m-3', endedBy: { whenBusy: 'interrupt', messageId: 'm-3' } };
    const rollback = { reason: 'rolled back by session message m-4', endedBy: { whenBusy: 'rollback', messageId: 'm-4' } };
    const events = [signal('intervene', steer), signal('intervene', operatorMessage), signal('kill', interrupt), signal('kill', rollback), signal('kill', { reason: 'enough' })];
    expect(humanInputs(events).interventions.map((i) => i.kind)).toEqual(['steer', 'inject_message', 'interrupt', 'rollback', 'kill']);
  });

  it('reads a tool failure as the recorded error', () => {
    const r = readRecording(json(join(corpus, 'tool-errors.json')), 'tool-errors.json');
    expect(r.toolCalls[0]!.outcome).toEqual({ kind: 'error', message: 'boom', type: 'requested_failure' });
  });

  it('refuses what is not an agent run history, naming it', () => {
    expect(() => readRecording({ hello: 1 }, 'x.json')).toThrow(/x.json is not a workflow history/);
    expect(() => readRecording(json(join(corpus, 'session-two-runs.json')), 'session.json')).toThrow(
      new RecordingError('session.json is a history of workflow type agentSession; only agent runs (agentRun) can be evaluated'),
    );
  });

  it('refuses a history from before the support window with its message', () => {
    const fixture = join(__dirname, '../fixtures/outside-window/0.8.0-basic.json');
    expect(() => readRecording(json(fixture), 'old.json')).toThrow(OutsideSupportWindowError);
    expect(() => readRecording(json(fixture), 'old.json')).toThrow(/support window/);
  });
});

describe('matching calls to the recording', () => {
  const ok = (result: unknown) => ({ kind: 'ok' as const, result: result as never });

  it('matches by tool and canonical arguments, whatever the key order', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
    const answers = new RecordedAnswers([{ turn: 0, toolCallId: 'c1', name: 'add', args: { a: 1, b: 2 }, outcome: ok({ sum: 3 }) }]);
    expect(answers.take('add', { b: 2, a: 1 })).toEqual(ok({ sum: 3 }));
    expect(answers.take('add', { a: 2, b: 1 })).toBeUndefined();
    expect(answers.take('echo', { a: 1, b: 2 })).toBeUndefined();
  });

  it('matches arguments as the tool receives them, defaults applied on both sides', () => {
    const withDefaults = (_name: string, args: unknown) => ({ retryable: false, ...(args as object) });
    const answers = new RecordedAnswers([{ turn: 0, toolCallId: 'c1', name: 'fail', args: { message: 'boom' }, outcome: ok(null) }], withDefaults);
    expect(answers.take('fail', { message: 'boom', retryable: false })).toEqual(ok(null));
  });

  it('hands repeated calls the recorded answers in order, then the last again', () => {
    const answers = new RecordedAnswers([
      { turn: 0, toolCallId: 'c1', name: 'flaky', args: {}, outcome: ok(1) },
      { turn: 1, toolCallId: 'c2', name: 'flaky', args: {}, outcome: ok(2) },
    ]);
    expect([answers.take('flaky', {}), answers.take('flaky', {}), answers.take('flaky', {})]).toEqual([ok(1), ok(2), ok(2)]);
  });

  it('decides an approval as recorded for the same call, and rejects an unrecorded one as not recorded', () => {
    const humans = new RecordedHumans([{ name: 'transfer', args: { to: 'a', amount: 500 }, decision: { decision: 'approve', toolCallId: 'old', always: false } }], []);
    expect(humans.decisionFor({ toolCallId: 'new', name: 'transfer', args: { amount: 500, to: 'a' }, turn: 1 })).toEqual({ decision: 'approve', toolCallId: 'new', always: false });
    expect(humans.decisionFor({ toolCallId: 'n2', name: 'transfer', args: { to: 'b', amount: 500 }, turn: 1 })).toMatchObject({ decision: 'reject', reason: expect.stringMatching(/^not recorded/) });
    expect(humans.unrecorded).toEqual([expect.objectContaining({ kind: 'approval', name: 'transfer', args: { to: 'b', amount: 500 } })]);
  });

  it("reads a rule planner's rejected call, which never ran, as a decision by call id, and gives it to the candidate's call of that id", () => {
    const rejected = readRecording(json(join(__dirname, '../../examples/watchlist/recorded-runs/2-add-rejected.json')), '2-add-rejected.json');
    expect(rejected.decisions).toEqual([{ decision: expect.objectContaining({ decision: 'reject', toolCallId: 'call_0_0', reason: 'not this one today' }) }]);
    const humans = new RecordedHumans(rejected.decisions, []);
    expect(humans.decisionFor({ toolCallId: 'call_0_0', name: 'add_to_watchlist', args: { symbols: ['TSLA'] }, turn: 0 })).toMatchObject({ decision: 'reject', toolCallId: 'call_0_0', reason: 'not this one today' });
    // Given once: the next call of that id (another turn's, after a rewind) is not recorded.
    expect(humans.decisionFor({ toolCallId: 'call_0_0', name: 'add_to_watchlist', args: { symbols: ['TSLA'] }, turn: 0 })).toMatchObject({ decision: 'reject', reason: expect.stringMatching(/^not recorded/) });
  });
});

describe('divergence', () => {
  const step = (turn: number, ...calls: [string, unknown][]) => ({ turn, calls: calls.map(([name, args]) => ({ name, args: args as never })) });
  const final = (turn: number, text: string) => ({ turn, calls: [], text });

  it('finds none when every turn decides the same (calls of a turn in any order)', () => {
    expect(firstDivergence([step(0, ['a', { x: 1 }], ['b', {}]), final(1, 'x')], [step(0, ['b', {}], ['a', { x: 1 }]), final(1, 'other words')])).toBeUndefined();
  });

  it('names the turn, the tools and the arguments where the arguments differ', () => {
    const d = firstDivergence([step(0, ['add', {}]), step(1, ['get_quote', { symbol: 'AAPL' }])], [step(0, ['add', {}]), step(1, ['get_quote', { symbol: 'MSFT' }])]);
    expect(d).toMatchObject({ turn: 1, kind: 'arguments', recorded: [{ name: 'get_quote', args: { symbol: 'AAPL' } }], candidate: [{ name: 'get_quote', args: { symbol: 'MSFT' } }] });
    expect(d?.summary).toBe('turn 1: get_quote {"symbol":"AAPL"} → get_quote {"symbol":"MSFT"}');
  });

  it('calls answering where the recording called tools a tool-choice divergence', () => {
    expect(firstDivergence([step(0, ['a', {}]), final(1, 'x')], [final(0, 'x')])).toMatchObject({ turn: 0, kind: 'tool_choice', summary: 'turn 0: a {} → final answer' });
    expect(firstDivergence([final(0, 'x')], [final(0, 'x'), step(1, ['a', {}])])).toMatchObject({ turn: 1, kind: 'tool_choice' });
  });
});

function run(source: string, overrides: Partial<RunEvaluation> = {}): RunEvaluation {
  const side = { input: { agent: 'a', messages: [{ role: 'user' as const, content: 'hi' }] }, steps: [], status: 'completed', final: { text: 'ok' }, totals: { turns: 2, toolCalls: 1, modelCalls: 2, tokens: 60, cost: { amount: 0.5, currency: 'USD' } } };
  return { source, agent: 'a <&>', candidateWorkflowId: 'eval-1', recorded: side, candidate: side, sameFinal: true, unrecorded: [], subRuns: [], missingSubRuns: [], interventions: [], answeredCalls: 1, liveCalls: 0, ...overrides };
}

describe('reports and gates', () => {
  const diverged = run('runs/b "2".json', {
    divergence: { turn: 1, kind: 'arguments', recorded: [], candidate: [], summary: 'turn 1: get_quote {"symbol":"AAPL"} → get_quote {"symbol":"<MSFT>"}' },
    unrecorded: [{ kind: 'tool', turn: 1, name: 'get_quote', args: { symbol: '<MSFT>' }, reason: 'no recorded call' }],
  });
  const report = summarize([run('runs/a.json'), diverged], {});

  it('sums the runs', () => {
    expect(report.totals).toMatchObject({ runs: 2, diverged: 1, argumentDivergences: 1, toolChoiceDivergences: 0, unrecordedCalls: 1, sameFinal: 2 });
    expect(report.totals.candidate).toEqual({ runs: 2, turns: 4, toolCalls: 2, modelCalls: 4, tokens: 120, cost: { USD: 1 } });
  });

  it('fails the gates a run fails, and only those', () => {
    expect(failedGates(report, ['no-tool-divergence'])).toEqual([]);
    expect(failedGates(report, ['no-divergence', 'no-unrecorded-calls']).map((f) => [f.gate, f.runs.map((r) => r.source)])).toEqual([
      ['no-divergence', ['runs/b "2".json']],
      ['no-unrecorded-calls', ['runs/b "2".json']],
    ]);
  });

  it('writes well-formed JUnit XML with one failed case per failing run', () => {
    const xml = formatEvalJunit(report, ['no-divergence']);
    expect(xmlProblem(xml)).toBeUndefined();
    expect(xmlProblem('<a><b></a>')).toBeDefined();
    expect(xml).toContain('tests="2" failures="1"');
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('name="runs/b &quot;2&quot;.json"');
    expect(xmlText('a\u0001<b>')).toBe('a&lt;b&gt;');
  });

  it('prints a table with the divergence and the totals', () => {
    const table = formatEvalTable(report);
    expect(table).toMatch(/runs\/b "2".json\s+turn 1 \(arguments\)/);
    expect(table).toContain('2 runs: 1 diverged (0 in tool choice, 1 in arguments), 1 unrecorded calls');
    expect(table).toContain('candidate: 4 turns, 2 tool calls, 4 model calls, 120 tokens, cost 1.000000 USD');
  });
});

describe('the candidate', () => {
  const recorded = {
    agent: 'watchlist-llm',
    messages: [{ role: 'user' as const, content: 'Add AAPL' }],
    sessionState: { watchlist: ['MSFT'] },
    plannerOptions: { maxRepairTurns: 1 },
    parent: { workflowId: 'p', toolCallId: 'c', path: ['c'] },
    sessionId: 's',
    breakpoints: [{ point: 'after_llm' as const, once: true }],
  };

  it('starts from the recorded input without what tied it to its place, with the model changed for LLM agents', () => {
    expect(candidateInput(recorded, { model: 'm2' }, watchlistLlmAgent)).toEqual({
      agent: 'watchlist-llm',
      messages: recorded.messages,
      sessionState: { watchlist: ['MSFT'] },
      plannerOptions: { maxRepairTurns: 1, model: 'm2' },
    });
    expect(candidateInput({ ...recorded, agent: 'scripted', plannerOptions: { steps: [] } }, { model: 'm2' }, scriptedAgent).plannerOptions).toEqual({ steps: [] });
  });

  it('stops before its first planner turn when the instructions change (the override is applied there)', () => {
    expect(candidateInput(recorded, { instructions: 'Be brief.' }, watchlistLlmAgent).breakpoints).toEqual([{ point: 'before_llm', once: true }]);
  });

  it('checks a structured answer against the agent\'s output schema', () => {
    const result = (structured: unknown): RunResult => ({ final: { text: '', structured } }) as unknown as RunResult;
    expect(outputValidity(watchlistLlmAgent, result({}))).toBeUndefined();
    expect(outputValidity(watchlistReportAgent, result({ watchlist: ['A'], quotes: [{ symbol: 'A', price: 1 }], summary: 's' }))).toEqual({ valid: true });
    expect(outputValidity(watchlistReportAgent, result({ watchlist: 'A' }))).toMatchObject({ valid: false, problem: expect.stringMatching(/watchlist/) });
    expect(outputValidity(watchlistReportAgent, undefined)).toEqual({ valid: false, problem: 'the run gave no structured answer' });
  });
});

describe('what the recordings need of an agent module', () => {
  const planner = { createPlanner: createScriptedPlanner };
  const files = defineAgent({ name: 'files', description: 'Files', tools: [], toolsets: [mcpToolset({ name: 'fs', server: 'filesystem' })], ...planner });
  const delegate = defineAgent({ name: 'delegate', description: 'Delegates', tools: [defineAgentTool({ name: 'ask_files', description: 'Ask files', agent: 'files' })], ...planner });
  const plain = defineAgent({ name: 'plain', description: 'No MCP', tools: [], ...planner });
  const agents = [files, delegate, plain];

  it('serves the agents the recordings run and the sub-agents their agent tools run, no others', () => {
    expect(agentsRecordingsRun(['plain'], agents).map((a) => a.name)).toEqual(['plain']);
    expect(agentsRecordingsRun(['delegate'], agents).map((a) => a.name)).toEqual(['files', 'delegate']);
  });

  it('names the recording, the agent, the toolset and the MCP server a recording needs and was not given; nothing when no recording needs one', () => {
    expect(missingMcpServer([{ source: 'a.json', agent: 'plain' }], agents, [])).toBeUndefined();
    expect(missingMcpServer([{ source: 'a.json', agent: 'plain' }, { source: 'b.json', agent: 'files' }], agents, ['other'])).toBe(
      'b.json is a run of files, whose toolset fs lists its tools from MCP server filesystem: give it with --mcp-config FILE (agentctl eval) or mcpServers (evaluateRuns); given: other',
    );
    expect(missingMcpServer([{ source: 'c.json', agent: 'delegate' }], agents, [])).toMatch(/^c\.json is a run of delegate, whose sub-agent files has the toolset fs, which lists its tools from MCP server filesystem: /);
    expect(missingMcpServer([{ source: 'c.json', agent: 'delegate' }], agents, ['filesystem'])).toBeUndefined();
  });
});
