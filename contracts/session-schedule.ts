import { z } from 'zod';
import { builtOnce } from './lazy';
import { jsonValueSchema } from './json';
import { busyPolicySchema, type BusyPolicy } from './session';

/**
 * Workflow type of one firing of a session's schedule: it posts the schedule's message into the
 * session through `sendMessage` (workflows/sessions/scheduled-message.ts).
 */
export const scheduledMessageWorkflowType = 'agentScheduledMessage';

/** Activity type that sends a scheduled message into its session (reserved; see reservedActivityNames). */
export const deliverScheduledMessageActivityName = 'session.deliverMessage';

/** What the session does with a firing that arrives while one of its runs is active (the message's `whenBusy`, see busyPolicySchema). */
export type WhenBusyPolicy = BusyPolicy;

/** The message a schedule posts at each firing. */
export const scheduledMessageSchema = builtOnce(() =>
  z.object({
    content: z.string().min(1, 'the message must not be empty'),
    /** Planner options of each firing's run (e.g. a script). */
    plannerOptions: jsonValueSchema().optional(),
    /** What the session does when a run is active at the firing; passed in the message only when set. */
    whenBusy: busyPolicySchema().optional(),
  }),
);
export type ScheduledMessage = z.infer<ReturnType<typeof scheduledMessageSchema>>;

/** Input of the deliverer workflow, as the schedule's action gives it. */
export const scheduledMessageInputSchema = builtOnce(() =>
  z.object({
    /** The session's workflow id (`session-<id>`). */
    sessionWorkflowId: z.string().min(1),
    /** The schedule that fired, for messages naming it. */
    scheduleId: z.string().min(1),
    message: scheduledMessageSchema(),
  }),
);
export type ScheduledMessageInput = z.infer<ReturnType<typeof scheduledMessageInputSchema>>;

/** Input of the delivery activity: the message, and the firing's id as its `messageId`. */
export const deliverScheduledMessageInputSchema = builtOnce(() =>
  z.object({
    sessionWorkflowId: z.string().min(1),
    scheduleId: z.string().min(1),
    /** The firing's own id (`<deliverer workflow id>/<its first run id>`): the same on every retry, unique per firing. */
    messageId: z.string().min(1),
    message: scheduledMessageSchema(),
  }),
);
export type DeliverScheduledMessageInput = z.infer<ReturnType<typeof deliverScheduledMessageInputSchema>>;
