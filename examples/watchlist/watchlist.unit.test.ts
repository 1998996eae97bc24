import { plannerContext } from 'durable-agents/testing';
import type { JsonValue, PlannerContext } from 'durable-agents/workflow';
import { createWatchlistPlanner, extractSymbols } from './agent';
import { demoPrice } from './tools';

function ctx(sessionState: Record<string, JsonValue>, state: Record<string, JsonValue> = {}): PlannerContext {
  return plannerContext({ agent: 'watchlist', sessionState, state });
}

describe('watchlist agent', () => {
  it('extracts tickers but not ordinary capitalised words', () => {
    expect(extractSymbols('Add AAPL, MSFT and AAPL to MY watchlist')).toEqual(['AAPL', 'MSFT']);
  });

  it('plans one add call for all symbols, then quotes the whole list', async () => {
    const planner = createWatchlistPlanner();
    const state: Record<string, JsonValue> = {};
    const first = await planner.planStart({ messages: [{ role: 'user', content: 'Add AAPL' }] }, ctx({ watchlist: [] }, state));
    expect(first).toEqual({ type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] });
    const second = await planner.planResume({ messages: [], toolOutputs: [], lastOutputs: [] }, ctx({ watchlist: ['TSLA', 'AAPL'] }, state));
    expect(second).toMatchObject({ type: 'tool_calls', calls: [{ args: { symbol: 'TSLA' } }, { args: { symbol: 'AAPL' } }] });
  });

  it('asks which symbols when an add names none', async () => {
    const plan = await createWatchlistPlanner().planStart({ messages: [{ role: 'user', content: 'add something' }] }, ctx({}));
    expect(plan).toMatchObject({ type: 'final', response: { text: expect.stringContaining('Which ticker') } });
  });

  it('demo prices are stable per symbol', () => {
    expect(demoPrice('AAPL')).toBe(demoPrice('AAPL'));
    expect(demoPrice('AAPL')).not.toBe(demoPrice('MSFT'));
  });
});
