import { randomBytes } from 'node:crypto';
import { signCall } from '../../config/delta-keys';
import type { TokenDelta } from '../../contracts/deltas';
import { ApiError } from '../../server/errors';
import { checkDeltaSignatures } from '../../server/live/delta-signatures';

const current = { id: 'k-2026-12', key: randomBytes(32) };
const older = { id: 'k-2026-11', key: randomBytes(32) };
const call = { workflowId: 'run-a', runId: 'exec-1', activityId: '4', attempt: 1 };
const delta = (over: Partial<TokenDelta> = {}): TokenDelta => ({ ...call, turn: 2, seq: 0, kind: 'text', text: 'Hi', at: 0, ...over });
const signed = (key: { id: string; key: Uint8Array }, of = call) => ({ ...of, keyId: key.id, signature: signCall(key.key, of) });

/** The refusal's status and message, or undefined when the deltas pass. */
function refusal(check: () => void): { status: number; message: string } | undefined {
  try {
    check();
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { status: err.status, message: err.message };
  }
}

describe('checking the signatures of posted token deltas', () => {
  it('takes anything when the server has no delta keys', () => {
    expect(refusal(() => checkDeltaSignatures([], [delta({ runId: undefined })]))).toBeUndefined();
  });

  it('takes the deltas of a call signed with any of its keys (rotation)', () => {
    expect(refusal(() => checkDeltaSignatures([current, older], [delta(), delta({ seq: 1 })], [signed(older)]))).toBeUndefined();
    expect(refusal(() => checkDeltaSignatures([current, older], [delta()], [signed(current)]))).toBeUndefined();
  });

  it('takes a post of announcements only, unsigned', () => {
    expect(refusal(() => checkDeltaSignatures([current], []))).toBeUndefined();
  });

  it('refuses unsigned deltas with 403, naming the run, the call and the key ids it takes', () => {
    expect(refusal(() => checkDeltaSignatures([current, older], [delta()]))).toEqual({
      status: 403,
      message: expect.stringContaining('token deltas of run "run-a" (execution "exec-1", activity "4", attempt 1) are not signed; this server takes only deltas signed with its delta keys (key ids "k-2026-12", "k-2026-11")'),
    });
  });

  it('refuses deltas that name no execution', () => {
    expect(refusal(() => checkDeltaSignatures([current], [delta({ runId: undefined })], [signed(current)]))?.message).toContain('name no runId');
  });

  it('refuses a signature by a key the server does not have, naming that key id', () => {
    const retired = { id: 'k-2026-01', key: randomBytes(32) };
    expect(refusal(() => checkDeltaSignatures([current], [delta()], [signed(retired)]))?.message).toContain('are signed with key "k-2026-01", which this server does not have (its key id "k-2026-12")');
  });

  it('refuses a signature made with other key material under a known id', () => {
    const impostor = { id: current.id, key: randomBytes(32) };
    expect(refusal(() => checkDeltaSignatures([current], [delta()], [signed(impostor)]))?.message).toContain('carry a signature by key "k-2026-12" that does not match');
  });

  it("binds a signature to its call: it vouches for no other attempt, activity or execution of the run", () => {
    const signature = signed(current);
    for (const other of [{ attempt: 2 }, { activityId: '5' }, { runId: 'exec-2' }]) {
      expect(refusal(() => checkDeltaSignatures([current], [delta(other)], [signature]))?.status).toBe(403);
      expect(refusal(() => checkDeltaSignatures([current], [delta(other)], [{ ...signature, ...other }]))?.message).toContain('does not match');
    }
  });

  it('refuses the whole post when one call of it is not signed', () => {
    const other = { ...call, activityId: '9' };
    expect(refusal(() => checkDeltaSignatures([current], [delta(), delta({ activityId: '9' })], [signed(current)]))?.message).toContain('activity "9"');
    expect(refusal(() => checkDeltaSignatures([current], [delta(), delta({ activityId: '9' })], [signed(current), signed(current, other)]))).toBeUndefined();
  });
});
