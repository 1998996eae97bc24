import { inputNestedTooDeep } from '../../contracts/json';
import { rejection } from '../kernel/failures';
import { boundedInputDepth, isPatched } from '../versioning/patches';

/**
 * Refuses a workflow's input nested too deep, before its recursive schemas meet it: a value some
 * thousands of levels deep (any client can send one) overflowed the stack in them, failing every
 * workflow task of the run or session instead of failing it. The fields a client gives (`given`)
 * have the run's bound, what the workflow carries across continue-as-new the wider one (see
 * {@link inputNestedTooDeep}). The one place `bounded-input-depth` is asked, for runs and
 * sessions alike, and only for such an input, so others record no marker; a run of an older
 * release that asks nothing here goes on to the schemas, which fail it as before.
 *
 * @param kind what the input starts, named in the failure: `run` or `session`.
 * @throws ApplicationFailure `invalid_input` naming the field and its bound.
 */
export function refuseInputNestedTooDeep(kind: 'run' | 'session', rawInput: unknown, given: (field: string) => boolean): void {
  const tooDeep = inputNestedTooDeep(rawInput, given);
  if (tooDeep !== undefined && isPatched(boundedInputDepth)) {
    throw rejection(`invalid ${kind} input: ${tooDeep.field}: nested deeper than ${tooDeep.levels} levels`, 'invalid_input');
  }
}
