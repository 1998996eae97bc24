/**
 * The agents the test suite runs: both examples' agents in one bundle (test/support/workflows.ts),
 * as a user combining two agent packages would. Definitions only: this module is bundled into
 * the workflow sandbox; the tools' implementations are in ./tools.
 */
import { toolboxAgents } from '../../examples/toolbox/agent';
import { watchlistAgents } from '../../examples/watchlist/agent';
import { faultyAgent, hastyAgent } from './faulty-agent';
import { localLlmAgent } from './local-llm-agent';
import { llmDelegatorAgent } from './llm-delegator-agent';
import { llmLeadAgent } from './llm-lead-agent';
import { nestedDelegatorAgent } from './nested-delegator-agent';
import { quickLlmAgent } from './quick-llm-agent';

/** Every agent of the test bundle. */
export const testAgents = [...toolboxAgents, ...watchlistAgents, faultyAgent, hastyAgent, localLlmAgent, llmDelegatorAgent, nestedDelegatorAgent, llmLeadAgent, quickLlmAgent];

/** Looks a test agent up by name (the model activity's `findAgent`). */
export function findTestAgent(name: string): (typeof testAgents)[number] | undefined {
  return testAgents.find((a) => a.name === name);
}
