/**
 * The benchmark's agents: the toolbox's `scripted` agent (its `echo` is a regular activity), and
 * `scripted-local`, the same loop with `echo` as a local tool (a Temporal local activity, run by
 * the worker that runs the workflow task): the counterpart of temporal-raw-local.
 */
import { createScriptedPlanner, defineAgent, defineTool } from 'durable-agents/workflow';
import { echoTool, scriptedAgent } from '../examples/toolbox/agent';

/** `echo` as a local tool (which cannot heartbeat: it runs inside the workflow task, which a crash retries whole). */
export const localEchoTool = defineTool({ ...echoTool, heartbeatTimeoutMs: undefined, local: true });

export const scriptedLocalAgent = defineAgent({
  name: 'scripted-local',
  description: 'Follows the script given in plannerOptions; its echo tool runs as a local activity.',
  tools: [localEchoTool],
  createPlanner: createScriptedPlanner,
});

export const benchAgents = [scriptedAgent, scriptedLocalAgent];
