import { z } from 'zod';
import { quoted, wellFormed } from '../../contracts/safe-text';
import type { AgentClient } from '../../client/agent-client';
import { awaitAnswerSchema, callDecisionSchema, killRequestSchema, pauseRequestSchema, resumeRequestSchema } from '../../contracts';
import { authorize, type Access, type Principal } from '../auth';
import { ApiError, toApiError, type ApiErrorBody } from '../errors';

/** Longest id of a control message (echoed in its result). */
const maxIdChars = 200;

/** The envelope of a control message sent over a run's WebSocket: `{ id, type, ...payload }`. */
export const controlEnvelopeSchema = z.looseObject({
  /** Echoed in the result, to match answers to requests. */
  id: z.union([z.string().max(maxIdChars), z.number()]).optional(),
  type: z.enum(['pause', 'resume', 'kill', 'decide', 'answer']),
});
export type ControlType = z.infer<typeof controlEnvelopeSchema>['type'];

/** The answer to a control message. */
export interface ControlResult {
  readonly type: 'result';
  readonly id: string | number | null;
  readonly ok: boolean;
  /** What the HTTP route answers: the result, or `{ error: { type, message } }`. */
  readonly body: unknown;
}

interface ControlAction {
  readonly access: Access;
  readonly schema: z.ZodType;
  run(agents: AgentClient, workflowId: string, payload: never, principal: Principal): Promise<unknown>;
}

/** The same payloads, roles and client calls as the HTTP control routes. */
const actions: Record<ControlType, ControlAction> = {
  pause: { access: 'operator', schema: pauseRequestSchema, run: (a, id, p: z.output<typeof pauseRequestSchema>) => a.pause(id, p) },
  resume: { access: 'operator', schema: resumeRequestSchema, run: (a, id, p: z.output<typeof resumeRequestSchema>) => a.resume(id, p.reason) },
  kill: { access: 'admin', schema: killRequestSchema, run: (a, id, p: z.output<typeof killRequestSchema>) => a.kill(id, p) },
  decide: {
    access: 'operator',
    schema: callDecisionSchema,
    run: (a, id, p: z.output<typeof callDecisionSchema>, principal) => a.decide(id, { ...p, by: p.by ?? principal.name }),
  },
  answer: { access: 'operator', schema: awaitAnswerSchema, run: (a, id, p: z.output<typeof awaitAnswerSchema>) => a.answer(id, p) },
};

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${['message', ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

function failure(id: string | number | null, err: unknown): ControlResult {
  const body: ApiErrorBody = toApiError(err).body();
  return { type: 'result', id, ok: false, body };
}

/** The id to echo in a result: the message's own when it is a valid one, else null (never a 100 KB string). */
function echoedId(id: unknown): string | number | null {
  if (typeof id === 'number' && Number.isFinite(id)) return id;
  return typeof id === 'string' && id.length <= maxIdChars ? wellFormed(id) : null;
}

/**
 * Runs one control message of a WebSocket client: parses it (JSON, envelope, payload with
 * the HTTP route's schema), checks the role the HTTP route needs, calls the run, and answers
 * `{ type: 'result', id, ok, body }` with the route's result or its JSON error. Never throws.
 */
export async function handleControlMessage(agents: AgentClient, workflowId: string, principal: Principal, raw: string): Promise<ControlResult> {
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch (err) {
    return failure(null, new ApiError('invalid_input', `the message is not JSON: ${err instanceof Error ? quoted(err.message, 100) : 'unreadable'}`));
  }
  const envelope = controlEnvelopeSchema.safeParse(message);
  const id = echoedId((message as { id?: unknown } | null)?.id);
  if (!envelope.success) return failure(id, new ApiError('invalid_input', describe(envelope.error)));
  const { type, ...payload } = envelope.data;
  delete payload.id;
  const action = actions[type];
  try {
    authorize(principal, action.access);
    const parsed = action.schema.safeParse(payload);
    if (!parsed.success) throw new ApiError('invalid_input', describe(parsed.error));
    const body = await action.run(agents, workflowId, parsed.data as never, principal);
    return { type: 'result', id, ok: true, body };
  } catch (err) {
    return failure(id, err);
  }
}
