import { defaultRunPolicy, type ToolOutput } from '../../contracts';
import { addToolOutputs, costReport, describeCap, emptyUsage, reachedCap } from '../../workflows/run/budget';

const output = (status: ToolOutput['status'], errorType?: NonNullable<ToolOutput['error']>['type']): ToolOutput => ({
  toolCallId: 'c',
  name: 't',
  args: {},
  turn: 0,
  status,
  resultBytes: 0,
  ...(errorType ? { error: { type: errorType, message: 'x' } } : {}),
  telemetry: { durationMs: 0 },
});

describe('budget', () => {
  it('counts every call and one iteration per turn', () => {
    const usage = addToolOutputs(emptyUsage(), [output('ok'), output('ok')]);
    expect(usage).toMatchObject({ toolCalls: 2, iterations: 1 });
  });

  it('extends the failure streak in call order and resets it on success', () => {
    expect(addToolOutputs(emptyUsage(), [output('error', 'tool_failed'), output('error', 'timeout')]).consecutiveFailures).toBe(2);
    expect(addToolOutputs(emptyUsage(), [output('error', 'tool_failed'), output('ok')]).consecutiveFailures).toBe(0);
  });

  it('does not count calls refused by the tool cap', () => {
    expect(addToolOutputs(emptyUsage(), [output('ok'), output('error', 'tool_cap')]).toolCalls).toBe(1);
  });

  it('cancelled calls neither fail nor succeed', () => {
    const usage = addToolOutputs({ ...emptyUsage(), consecutiveFailures: 1 }, [output('cancelled', 'cancelled')]);
    expect(usage.consecutiveFailures).toBe(1);
  });

  it('human rejections, operator drops and blocks are not tool failures', () => {
    const usage = addToolOutputs({ ...emptyUsage(), consecutiveFailures: 2 }, [output('error', 'rejected'), output('error', 'rejected'), output('error', 'rejected')]);
    expect(usage.consecutiveFailures).toBe(2);
    expect(usage.toolCalls).toBe(3);
  });

  it('reports no cap for a fresh run', () => {
    expect(reachedCap(emptyUsage(), defaultRunPolicy, 0)).toBeUndefined();
  });

  it.each([
    ['time_budget', { ...emptyUsage() }, 10_000_000],
    ['failure_cap', { ...emptyUsage(), consecutiveFailures: 3 }, 0],
    ['tool_cap', { ...emptyUsage(), toolCalls: 100 }, 0],
    ['iteration_cap', { ...emptyUsage(), iterations: 25 }, 0],
  ] as const)('reports %s when reached', (reason, usage, elapsed) => {
    expect(reachedCap(usage, defaultRunPolicy, elapsed)).toBe(reason);
  });

  it('reports token_budget only when a token cap is set', () => {
    const usage = { ...emptyUsage(), tokens: 1_000 };
    expect(reachedCap(usage, defaultRunPolicy, 0)).toBeUndefined();
    expect(reachedCap(usage, { ...defaultRunPolicy, maxTokens: 1_000 }, 0)).toBe('token_budget');
  });

  it('builds a cost report with used, max and remaining', () => {
    const report = costReport({ ...emptyUsage(), toolCalls: 40 }, defaultRunPolicy, 1234);
    expect(report.toolCalls).toEqual({ used: 40, max: 100, remaining: 60 });
    expect(report.tokens).toEqual({ used: 0 });
    expect(report.elapsedMs).toBe(1234);
  });

  it('shows model calls of unknown token usage on the token line instead of counting them as 0', () => {
    const usage = { ...emptyUsage(), tokens: 30, modelCalls: 3, tokensUnknownCalls: 2 };
    expect(costReport(usage, { ...defaultRunPolicy, maxTokens: 100 }, 0).tokens).toEqual({ used: 30, max: 100, remaining: 70, unknownCalls: 2 });
    expect(describeCap('token_budget', usage, defaultRunPolicy)).toContain('2 call(s) of unknown usage');
  });
});
