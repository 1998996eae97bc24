import { toolActivityType } from '../contracts/tool-activity-type';
import { isPatched, namespacedToolActivities } from './patches';

/**
 * The activity type this run schedules for a tool: `<agent>/<tool>`, or the bare tool name
 * for runs recorded before tool activities were namespaced (0.1.0).
 */
export function runToolActivityType(agent: string, tool: string): string {
  return isPatched(namespacedToolActivities) ? toolActivityType(agent, tool) : tool;
}
