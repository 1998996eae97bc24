/** The workflows module of the changed watchlist agent (the planner runs inside the workflow). */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { watchlistWithoutQuotes } from './watchlist-no-quotes';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: [watchlistWithoutQuotes] });
