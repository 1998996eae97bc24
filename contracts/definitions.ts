import { defineQuery } from '@temporalio/workflow';
import type { EventPage } from './events';
import type { RunStatusReport } from './run';

/** Workflow type name of an agent run. */
export const agentRunWorkflowType = 'agentRun';

/** Current state, iteration, pending calls and budget of a run. */
export const statusQuery = defineQuery<RunStatusReport>('status');

/** Events with seq greater than `afterSeq` (at most `limit`). Args: `{ afterSeq?, limit? }`. */
export const eventsQuery = defineQuery<EventPage, [unknown?]>('events');
