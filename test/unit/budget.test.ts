import { defaultRunPolicy, type ToolOutput } from '../../contracts';
import { addToolOutputs, costReport, describeCap, emptyUsage, reachedCap, timeBudgetStep, timeBudgetStepEnds, type WatchedRun } from '../../workflows/state/budget';

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

describe('the time-budget watch decides from the run as it stands', () => {
  const running: WatchedRun = { isTerminal: false, isIdle: false, timeBudgetMs: 10_000, toolTurns: 3 };

  it('arms a timer for what is left, and reads the elapsed time only for a running run', () => {
    expect(timeBudgetStep(running, () => 4_000)).toEqual({ kind: 'arm', timerMs: 6_000 });
    const neverRead = (): number => {
      throw new Error('elapsed time read');
    };
    expect(timeBudgetStep({ ...running, isTerminal: true }, neverRead)).toEqual({ kind: 'ended' });
    expect(timeBudgetStep({ ...running, isIdle: true }, neverRead)).toEqual({ kind: 'idle' });
  });

  it('finds the budget spent at and past its end, also after it was lowered below the elapsed time', () => {
    expect(timeBudgetStep(running, () => 10_000)).toEqual({ kind: 'spent' });
    expect(timeBudgetStep({ ...running, timeBudgetMs: 1_000 }, () => 4_000)).toEqual({ kind: 'spent' });
  });

  it('an idle run is looked at again when it goes on or ends, not when its budget changes', () => {
    const idle = { ...running, isIdle: true };
    expect(timeBudgetStepEnds('idle', idle, { ...idle, timeBudgetMs: 20_000 })).toBe(false);
    expect(timeBudgetStepEnds('idle', idle, running)).toBe(true);
    expect(timeBudgetStepEnds('idle', idle, { ...idle, isTerminal: true })).toBe(true);
  });

  it('a spent budget waits for a new tool turn, a new budget, idling or the end', () => {
    expect(timeBudgetStepEnds('spent', running, running)).toBe(false);
    expect(timeBudgetStepEnds('spent', running, { ...running, toolTurns: 4 })).toBe(true);
    expect(timeBudgetStepEnds('spent', running, { ...running, timeBudgetMs: 60_000 })).toBe(true);
    expect(timeBudgetStepEnds('spent', running, { ...running, isIdle: true })).toBe(true);
    expect(timeBudgetStepEnds('spent', running, { ...running, isTerminal: true })).toBe(true);
  });

  it('an armed timer is re-armed when it fires or the budget changes, not for a new tool turn', () => {
    expect(timeBudgetStepEnds('arm', running, { ...running, toolTurns: 9 })).toBe(false);
    expect(timeBudgetStepEnds('arm', running, running, true)).toBe(true);
    expect(timeBudgetStepEnds('arm', running, { ...running, timeBudgetMs: 5_000 })).toBe(true);
    expect(timeBudgetStepEnds('arm', running, { ...running, isIdle: true })).toBe(true);
    expect(timeBudgetStepEnds('ended', running, { ...running, isIdle: true })).toBe(false);
  });
});
