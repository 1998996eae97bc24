/**
 * The workflow interceptors every durable-agents bundle loads (`configureAgentBundler` lists this
 * module): after each activation, boundaries that no activity of the activation marks get their
 * memo change (see turn-boundaries.ts), and a run whose event log grew tells the worker
 * (event-announcements.ts).
 */
import type { coresdk } from '@temporalio/proto';
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import { concludeBoundaries, installBoundaryConcluder } from './turn-boundaries';
import { announceNewEvents } from '../state/event-announcements';

const taskHistoryLength = (): number => workflowInfo().historyLength;

/** A command that ends the execution: its last events are announced whatever is still in flight. */
const endsExecution = (command: coresdk.workflow_commands.IWorkflowCommand): boolean =>
  Boolean(command.completeWorkflowExecution || command.failWorkflowExecution || command.continueAsNewWorkflowExecution || command.cancelWorkflowExecution);

/** Called by the SDK once per workflow execution. */
export const interceptors = (): WorkflowInterceptors => {
  installBoundaryConcluder();
  return {
    internals: [
      {
        concludeActivation: (input, next) => {
          announceNewEvents(input.commands.some(endsExecution));
          return next({ commands: concludeBoundaries(input.commands, taskHistoryLength) });
        },
      },
    ],
  };
};
