/**
 * The workflow interceptors every durable-agents bundle loads (`configureAgentBundler` lists this
 * module): after each activation, boundaries that no activity of the activation marks get their
 * memo change (see turn-boundaries.ts).
 */
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import { concludeBoundaries, installBoundaryConcluder } from './turn-boundaries';

const taskHistoryLength = (): number => workflowInfo().historyLength;

/** Called by the SDK once per workflow execution. */
export const interceptors = (): WorkflowInterceptors => {
  installBoundaryConcluder();
  return {
    internals: [{ concludeActivation: (input, next) => next({ commands: concludeBoundaries(input.commands, taskHistoryLength) }) }],
  };
};
