import { z } from 'zod';
import { isWellFormedText } from '../../contracts/safe-text';

// The ids a request names a run by, checked here for every route that takes one: Temporal
// answers a malformed run id with INVALID_ARGUMENT and an id it cannot encode (a lone UTF-16
// surrogate) with a failure to send, both of which were 500s. A route's schema uses these, so its
// 400 names the field (`query.runId: not a run id …`).

const wellFormed = { message: 'must be well-formed Unicode text (it has a lone surrogate)' };

/** A run id (`?runId=`, `body.runId`): which execution of a workflow id, a UUID as Temporal gives them. */
export const runIdSchema = z.guid('not a run id (a UUID, as the runId of a start or a listing)');

/** A workflow id a caller gives a new run (a start, a fork): what Temporal accepts, on one printable line. */
export const workflowIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(400)
  .regex(/^[^\s/?#]+$/, 'use no whitespace, "/", "?" or "#"')
  .refine(isWellFormedText, wellFormed);

/** A session id (its workflow id is `session-<id>`). */
export const sessionIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(200)
  .regex(/^[^\s/?#]+$/, 'use no whitespace, "/", "?" or "#"')
  .refine(isWellFormedText, wellFormed);

/** The workflow id of a run a body names (a chat's id, an AG-UI thread): up to Temporal's 1,000 characters. */
export const runReferenceSchema = z.string().min(1).max(1_000).refine(isWellFormedText, wellFormed);
