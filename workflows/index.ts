/**
 * Entry point of the workflow bundle. Everything reachable from here runs in the
 * deterministic sandbox.
 */
import '../agents/definitions';

export { agentRun } from './agent-run';
export { agentSession } from './agent-session';
export { registerAgent, findAgent, agentNames, type AgentDefinition } from './agent-registry';
export type { Planner, PlannerContext, PlanStartInput, PlanResumeInput, AgentState } from './planner';
export { createScriptedPlanner, scriptedPlannerOptionsSchema, scriptStepSchema, type ScriptStep, type ScriptedPlannerOptions } from './planners/scripted';
