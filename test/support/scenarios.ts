import type { AgentClient } from '../../client/agent-client';
import type { RunInput } from '../../contracts';
import { callStep, finalStep, scriptedInput } from './scripts';

/** A run whose history is committed under test/histories/ and replayed in CI. */
export interface Scenario {
  readonly name: string;
  readonly input: RunInput;
  /** Drives the run from outside (signals, updates) while it runs; awaits nothing by default. */
  drive?(agents: AgentClient, workflowId: string): Promise<void>;
}

const echo = (text: string) => ({ name: 'echo', args: { text } });

/** Every scenario captured by `npm run histories`. */
export const scenarios: readonly Scenario[] = [
  {
    name: 'basic',
    input: scriptedInput([callStep(echo('one')), callStep({ name: 'add', args: { a: 1, b: 2 } }), finalStep('basic done')]),
  },
  {
    name: 'parallel-tools',
    input: scriptedInput([callStep(echo('a'), echo('b'), { name: 'sleep', args: { ms: 50 } }), finalStep()]),
  },
  {
    name: 'tool-errors',
    input: scriptedInput([
      callStep({ name: 'fail', args: { message: 'boom' } }, { name: 'teleport', args: {} }, { name: 'add', args: { a: 'x' } }),
      callStep({ name: 'flaky', args: { failAttempts: 1 } }),
      finalStep(),
    ]),
  },
  {
    name: 'iteration-cap',
    input: scriptedInput([callStep(echo('1')), callStep(echo('2')), callStep(echo('3')), finalStep()], { policy: { maxIterations: 2 } }),
  },
  {
    name: 'time-budget',
    input: scriptedInput([callStep({ name: 'sleep', args: { ms: 20_000 } }), finalStep()], { policy: { timeBudgetMs: 1_000 } }),
  },
  {
    name: 'watchlist',
    input: { agent: 'watchlist', messages: [{ role: 'user', content: 'Add AAPL and NVDA to my watchlist' }], sessionState: { watchlist: ['TSLA'] } },
  },
];
