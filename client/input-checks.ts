import { inputNestedTooDeep } from '../contracts/json';
import { payloadTooLarge } from '../contracts/payload-limit';
import { AgentClientError } from './errors';

// What AgentClient checks of an input before it sends it.

/**
 * Answers `value` when its JSON fits the payload limit the servers enforce.
 *
 * @throws AgentClientError `invalid_input` naming the limit and the actual size.
 */
export function fits<T>(what: string, value: T): T {
  const tooLarge = payloadTooLarge(what, value);
  if (tooLarge) throw new AgentClientError('invalid_input', tooLarge);
  return value;
}

/**
 * Refuses an input with a field nested deeper than the workflows take, before the recursive
 * schemas meet it (a value some thousands of levels deep overflowed the stack there).
 *
 * @throws AgentClientError `invalid_input` naming the field.
 */
export function refuseNestedTooDeep(what: string, input: unknown): void {
  const tooDeep = inputNestedTooDeep(input, (field) => field !== 'continued');
  if (tooDeep) throw new AgentClientError('invalid_input', `invalid ${what}: ${tooDeep.field}: nested deeper than ${tooDeep.levels} levels`);
}
