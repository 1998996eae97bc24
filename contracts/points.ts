import { z } from 'zod';
import { builtOnce } from './lazy';

/**
 * Points of a run where operators and agent hooks can act (seed 000). Every one is a safe
 * point: nothing is half done when the run stops there.
 */
export const interventionPointSchema = builtOnce(() =>
  z.enum([
    'before_llm',
    'after_llm',
    'before_tool',
    'after_tool',
    'task_boundary',
    'before_commit',
  ]),
);
export type InterventionPoint = z.infer<ReturnType<typeof interventionPointSchema>>;
