import type { JsonValue } from '../../contracts/json';
import type { AgentState } from '../agents/planner';

/** {@link AgentState} over a plain record, so it can be carried in durable state. */
export function recordAgentState(record: Record<string, JsonValue>): AgentState {
  return {
    get: (key) => record[key],
    set: (key, value) => {
      record[key] = value;
    },
    keys: () => Object.keys(record),
  };
}
