/**
 * The agent of the opt-in real-model test (`npm run test:real-llm`): one confirmation-gated tool
 * whose arguments a grammar can bound (one ticker), and settings that make a tiny local model's
 * turns mechanical (the tool call is required and short). Definitions only: bundled into the
 * sandbox; the implementation is in ./tools.
 */
import { z } from 'zod';
import { defineTool } from '../../contracts/tool-definition';
import { defineLlmAgent } from '../../workflows/planners/llm';

/** Adds one ticker to the watchlist in session state (needs confirmation). */
export const addSymbolTool = defineTool({
  name: 'add_symbol',
  description: "Add one stock ticker to the user's watchlist.",
  requiresConfirmation: true,
  sessionKeys: ['watchlist'],
  input: z.object({ symbol: z.string().regex(/^[A-Z]{1,5}$/) }),
});

export const localLlmAgent = defineLlmAgent({
  name: 'watchlist-llm-local',
  description: 'Adds to the watchlist, planned by a small local model (real-model test).',
  instructions: 'You MUST use the add_symbol tool when the user asks to add a stock.',
  tools: [addSymbolTool],
  llm: { model: 'smollm2-135m', request: { maxTokens: 64, temperature: 0, toolChoice: 'required', parallelToolCalls: false } },
});
