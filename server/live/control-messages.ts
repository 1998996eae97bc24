import { z } from 'zod';
import { quoted, wellFormed } from '../../contracts/safe-text';
import { fieldNestedTooDeep, maxSafeJsonDepth } from '../../contracts/json';
import type { AgentClient } from '../../client/agent-client';
import { authorize, type Principal } from '../auth';
import { runOperations, type AnyOperation } from '../operations';
import { ApiError, toApiError, type ApiErrorBody } from '../errors';

/** Longest id of a control message (echoed in its result). */
const maxIdChars = 200;

/** The envelope of a control message naming one of `operations`: `{ id, type, ...payload }`. */
function envelopeSchemaOf(operations: readonly AnyOperation[]) {
  return z.looseObject({
    /** Echoed in the result, to match answers to requests. */
    id: z.union([z.string().max(maxIdChars), z.number()]).optional(),
    type: z.enum(operations.map((op) => op.name) as [string, ...string[]]),
  });
}

/**
 * The envelope of a control message sent over a run's WebSocket: `{ id, type, ...payload }`,
 * where `type` names an operation of {@link runOperations}: one message type per row of the
 * operations table.
 */
export const controlEnvelopeSchema = envelopeSchemaOf(runOperations);
export type ControlType = z.infer<typeof controlEnvelopeSchema>['type'];

/** The answer to a control message. */
export interface ControlResult {
  readonly type: 'result';
  readonly id: string | number | null;
  readonly ok: boolean;
  /** What the HTTP route answers: the result, or `{ error: { type, message } }`. */
  readonly body: unknown;
}

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
 * Runs one control message of a WebSocket client: parses it (JSON, envelope, payload with the
 * operation's schema), checks the role the operation needs (as its HTTP route does), performs it, and answers
 * `{ type: 'result', id, ok, body }` with the route's result or its JSON error. Never throws.
 * `operations`: the operations it takes (default: every operation on a run). `subject`: what the
 * socket is for, named first in the errors of a message it cannot take (`session shop-42`);
 * default none.
 */
export async function handleControlMessage(agents: AgentClient, workflowId: string, principal: Principal, raw: string, operations: readonly AnyOperation[] = runOperations, subject?: string): Promise<ControlResult> {
  const invalid = (message: string) => new ApiError('invalid_input', subject === undefined ? message : `${subject}: ${message}`);
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch (err) {
    return failure(null, invalid(`the message is not JSON: ${err instanceof Error ? quoted(err.message, 100) : 'unreadable'}`));
  }
  const envelope = (operations === runOperations ? controlEnvelopeSchema : envelopeSchemaOf(operations)).safeParse(message);
  const id = echoedId((message as { id?: unknown } | null)?.id);
  if (!envelope.success) return failure(id, invalid(describe(envelope.error)));
  const { type, ...payload } = envelope.data;
  delete payload.id;
  const operation = operations.find((op) => op.name === type)!;
  try {
    authorize(principal, operation.access);
    // As the HTTP routes do: before the schema, which a value some thousands of levels deep could overflow.
    const tooDeep = fieldNestedTooDeep(payload, () => true, maxSafeJsonDepth);
    if (tooDeep !== undefined) throw invalid(`${tooDeep}: nested deeper than ${maxSafeJsonDepth} levels`);
    const parsed = operation.body ? operation.body.safeParse(payload) : { success: true as const, data: undefined };
    if (!parsed.success) throw invalid(describe(parsed.error));
    const body = await operation.perform(agents, workflowId, parsed.data, principal);
    return { type: 'result', id, ok: true, body };
  } catch (err) {
    return failure(id, err);
  }
}
