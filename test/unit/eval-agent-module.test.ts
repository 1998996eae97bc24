/** What `agentctl eval --agent-module` takes from a module: one definition per agent name. */
import { agentsOf } from '../../cli/commands/eval';
import { UsageError } from '../../cli/exit-codes';
import { defineAgent, defineLlmAgent } from '../../workflows';
import { createWatchlistPlanner, watchlistAgent, watchlistLlmAgent } from '../../examples/watchlist/agent';

it('takes two versions of a planner written as code with the same tools as one agent (the planner runs from the workflows module)', () => {
  const changed = defineAgent({ ...watchlistAgent, createPlanner: () => createWatchlistPlanner() });
  expect(agentsOf({ watchlistAgent, changed }, 'agents.js')).toEqual([watchlistAgent]);
  expect(agentsOf({ default: { all: [watchlistAgent, changed] } }, 'agents.js')).toEqual([watchlistAgent]);
});

it('refuses two definitions of one name that the evaluation would serve differently, naming it', () => {
  const fewerTools = defineAgent({ ...watchlistAgent, tools: watchlistAgent.tools.slice(0, 1) });
  expect(() => agentsOf({ watchlistAgent, fewerTools }, 'agents.js')).toThrow(new UsageError("--agent-module agents.js: two different agents are named watchlist (other tools, or planned by a model): export the candidate's only"));
  const otherModel = defineLlmAgent({ ...watchlistLlmAgent, llm: { ...watchlistLlmAgent.llm, model: 'another-model' } });
  expect(() => agentsOf({ watchlistLlmAgent, otherModel }, 'agents.js')).toThrow(/two different agents are named watchlist-llm/);
  expect(() => agentsOf({ nothing: 1 }, 'agents.js')).toThrow(/exports no agent definitions/);
});
