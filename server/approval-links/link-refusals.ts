import type { Context } from 'hono';
import { AgentClientError } from '../../client/errors';
import { ApiError } from '../errors';
import { linkPageHeaders, refusalPage } from './link-page';
import type { ApprovalLinkClaims } from './link-token';

/** The HTTP status of each refusal of a link page. */
const refusalStatus = {
  malformed: 400,
  invalid_input: 400,
  unknown_key: 401,
  bad_signature: 401,
  foreign_approver: 403,
  cross_origin: 403,
  run_not_found: 404,
  stale_digest: 409,
  already_decided: 409,
  not_waiting: 410,
  expired: 410,
  used: 410,
  run_ended: 410,
  unsupported_media_type: 415,
  too_large: 413,
  unavailable: 503,
  undecodable: 500,
  failure: 500,
} as const;
/** Why a link page refuses: its `data-refusal`. */
export type PageRefusal = keyof typeof refusalStatus;

const refusalTitles: Record<PageRefusal, string> = {
  malformed: 'This is not a valid approval link',
  invalid_input: 'The answer cannot be taken',
  unknown_key: 'This link was not signed by this server',
  bad_signature: 'This link was tampered with',
  foreign_approver: 'You may not answer this link',
  cross_origin: 'Refused: the form came from another site',
  run_not_found: 'No such run',
  stale_digest: 'The call changed since this link was sent',
  already_decided: 'This call was decided already',
  not_waiting: 'This call no longer waits for a decision',
  expired: 'This link has expired',
  used: 'This link was used already',
  run_ended: 'The run has ended',
  unsupported_media_type: 'The answer must be a form',
  too_large: 'The answer is too large',
  unavailable: 'The run cannot answer right now',
  undecodable: 'This server cannot read the run',
  failure: 'Something went wrong',
};

/** A refusal page with its status. */
export function refused(c: Context, refusal: PageRefusal, message: string): Response {
  return c.html(refusalPage(refusalTitles[refusal], message, refusal), refusalStatus[refusal], linkPageHeaders);
}

/** The page of an error of the client or server: what a person can act on, never the token. `undecodable`: why this server cannot read the run, when it cannot. */
export function errorPage(c: Context, err: unknown, claims: ApprovalLinkClaims, undecodable?: string): Response {
  if (undecodable !== undefined) return refused(c, 'undecodable', `${undecodable}. Nothing was decided here; answer from a server that has the key, or from the dashboard.`);
  if (err instanceof AgentClientError) {
    if (err.type === 'rejected' && (err.refusal === 'already_decided' || err.refusal === 'stale_digest')) return refused(c, err.refusal, err.message);
    if (err.type === 'rejected' || err.type === 'invalid_input') return refused(c, 'invalid_input', err.message);
    if (err.type === 'run_ended') return refused(c, 'run_ended', `run ${claims.run} has ended: nothing waits for a decision any more`);
    if (err.type === 'run_not_found') return refused(c, 'run_not_found', `no run ${claims.run} (it was deleted, or the link comes from another Temporal namespace)`);
    if (err.type === 'unanswered') return refused(c, 'unavailable', `${err.message}; try again in a minute (the link stays valid until it expires)`);
  }
  if (err instanceof ApiError && err.type === 'too_large') return refused(c, 'too_large', err.message);
  // Logged without the request's path: the token is in it.
  console.error(`durable-agents server: approval link of run ${claims.run} call ${claims.toolCallId}:`, err);
  return refused(c, 'failure', 'the server could not handle the answer; it is logged. Try again, or answer from the dashboard.');
}
