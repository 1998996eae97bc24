/**
 * The workflow interceptors every durable-agents bundle loads (`configureAgentBundler` lists this
 * module): after each activation, boundaries that no activity of the activation marks get their
 * memo change (see turn-boundaries.ts), and a run whose event log grew tells the worker
 * (event-announcements.ts).
 */
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import { concludeBoundaries, installBoundaryConcluder } from './turn-boundaries';
import { announceNewEvents } from '../state/event-announcements';

const taskHistoryLength = (): number => workflowInfo().historyLength;

/** Called by the SDK once per workflow execution. */
export const interceptors = (): WorkflowInterceptors => {
  installBoundaryConcluder();
  return {
    internals: [
      {
        concludeActivation: (input, next) => {
          announceNewEvents();
          return next({ commands: concludeBoundaries(input.commands, taskHistoryLength) });
        },
      },
    ],
  };
};
