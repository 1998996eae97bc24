/**
 * Two releases of one agent, `release`, as two worker versions would ship them. Release 2 drops
 * the approval of its `ship` tool: an incompatible change (a run waiting for the approval
 * recorded commands that release 2 never emits), made without `patched()` on purpose, so only
 * worker versioning keeps open runs safe.
 */
import { z } from 'zod';
import { createScriptedPlanner, defineAgent, defineTool } from 'durable-agents/workflow';

const shipInput = z.object({ what: z.string() });
const description = 'Ships what it is asked to';

/** Release 1 of the `ship` tool: a human approves every call. */
export const shipV1 = defineTool({ name: 'ship', description: 'Ship it (approved by a human)', input: shipInput, requiresConfirmation: true });
/** Release 2 of the `ship` tool: no approval. */
export const shipV2 = defineTool({ name: 'ship', description: 'Ship it', input: shipInput });

export const releaseAgentV1 = defineAgent({ name: 'release', description, tools: [shipV1], createPlanner: createScriptedPlanner });
export const releaseAgentV2 = defineAgent({ name: 'release', description, tools: [shipV2], createPlanner: createScriptedPlanner });
