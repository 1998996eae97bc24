import { budgetChangeSchema, type BudgetChange } from '../../contracts';
import { validate } from '../args';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';
import { renderCost } from '../render';
import { updateOrQueue } from '../queued';

/** Budget fields by flag. */
const budgetFlags = {
  'max-tool-calls': 'maxToolCalls',
  'max-iterations': 'maxIterations',
  'max-failures': 'maxConsecutiveFailures',
  'time-budget-ms': 'timeBudgetMs',
  'max-tokens': 'maxTokens',
  'max-model-calls': 'maxModelCalls',
  'max-cost': 'maxCost',
} as const satisfies Record<string, keyof BudgetChange>;

/** `budget RUN --max-tool-calls N …`: changes caps while the run runs. */
export const budgetCommand: Command = {
  name: 'budget',
  summary: "change a run's caps while it runs; prints the new budget",
  positionals: ['RUN'],
  options: {
    'max-tool-calls': { type: 'string', value: 'N', description: 'tool calls in the whole run' },
    'max-iterations': { type: 'string', value: 'N', description: 'planner turns that dispatched tool calls' },
    'max-failures': { type: 'string', value: 'N', description: 'consecutive tool failures' },
    'time-budget-ms': { type: 'string', value: 'N', description: 'wall-clock budget of the run' },
    'max-tokens': { type: 'string', value: 'N', description: 'model tokens' },
    'max-model-calls': { type: 'string', value: 'N', description: 'model calls' },
    'max-cost': { type: 'string', value: 'AMOUNT', description: "money, in the workers' price table currency (e.g. 2.50)" },
  },
  examples: ['budget run-watchlist-k3j9x2ab --max-tool-calls 20 --time-budget-ms 600000', 'budget run-watchlist-k3j9x2ab --max-cost 5'],
  prepare(args) {
    const runId = args.positional(0);
    const change: BudgetChange = {};
    for (const [flag, field] of Object.entries(budgetFlags)) {
      const value = flag === 'max-cost' ? args.positiveNumber(flag) : args.int(flag);
      if (value !== undefined) change[field] = value;
    }
    const flagOf = Object.fromEntries(Object.entries(budgetFlags).map(([flag, field]) => [field, `--${flag}`]));
    if (Object.keys(change).length === 0) throw new UsageError(`name at least one budget: ${Object.keys(budgetFlags).map((f) => `--${f}`).join(', ')}`);
    validate(budgetChangeSchema, change, flagOf);
    return async (ctx) => {
      await updateOrQueue(ctx, runId, 'budget change', () => ctx.agents.setBudget(runId, change), { name: 'setBudget', payload: change }, (cost) =>
        ctx.out.emit(cost, () => `budget of ${runId}: ${renderCost(cost)}`),
      );
    };
  },
};
