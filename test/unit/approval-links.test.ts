import { randomBytes } from 'node:crypto';
import { approvalNoticeBody } from '../../activities/approval-notifier';
import { approvalLinkKeysFromEnv } from '../../config/approval-link-keys';
import { linkApprover, linkDecision } from '../../server/approval-links/link-decision';
import { approvalPage, escapeHtml } from '../../server/approval-links/link-page';
import { signApprovalLink, verifyApprovalLink, type ApprovalLinkClaims } from '../../server/approval-links/link-token';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const digest = `sha256:${'a'.repeat(64)}`;
const claims = { jti: 'j1', run: 'run-1', toolCallId: 'call_0_0', digest, approver: { names: ['alice', 'bob'] }, iat: 1_000, exp: 2_000 };
const now = 1_500;

describe('approval link tokens', () => {
  it('a token signed with a key verifies with it, and gives back its claims', () => {
    expect(verifyApprovalLink(signApprovalLink(k1, claims), [k1], now)).toEqual({ claims: { v: 1, kid: 'k1', ...claims } });
  });

  it('a token signed with an older key still verifies while that key is listed (rotation)', () => {
    expect(verifyApprovalLink(signApprovalLink(k2, claims), [k1, k2], now)).toMatchObject({ claims: { kid: 'k2' } });
  });

  it('a token whose claims were changed is refused as tampered', () => {
    const [body, signature] = signApprovalLink(k1, claims).split('.');
    const changed = JSON.parse(Buffer.from(body ?? '', 'base64url').toString()) as ApprovalLinkClaims;
    const forged = Buffer.from(JSON.stringify({ ...changed, approver: { names: ['mallory'] } })).toString('base64url');
    expect(verifyApprovalLink(`${forged}.${signature}`, [k1], now)).toEqual({ type: 'bad_signature', message: `the link's signature does not match (key "k1"): it was changed after it was minted` });
  });

  it('a token whose signature was changed is refused as tampered', () => {
    const token = signApprovalLink(k1, claims);
    const flipped = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(verifyApprovalLink(flipped, [k1], now)).toMatchObject({ type: 'bad_signature' });
  });

  it('a token signed with a key of the same id but other bytes is refused as tampered', () => {
    expect(verifyApprovalLink(signApprovalLink({ id: 'k1', key: randomBytes(32) }, claims), [k1], now)).toMatchObject({ type: 'bad_signature' });
  });

  it('a token of a key id the server does not have is refused, naming the id', () => {
    expect(verifyApprovalLink(signApprovalLink(k2, claims), [k1], now)).toEqual({
      type: 'unknown_key',
      message: 'the link was signed with key "k2", which this server does not have (it was removed, or the link comes from another deployment)',
    });
  });

  it('a token past its expiry is refused, saying when it expired', () => {
    expect(verifyApprovalLink(signApprovalLink(k1, claims), [k1], 2_000)).toMatchObject({ type: 'expired', message: 'the link expired at 1970-01-01T00:33:20.000Z; ask for a new one' });
  });

  it.each([
    ['no dot', 'abc', 'expected two base64url parts'],
    ['three parts', 'a.b.c', 'expected two base64url parts'],
    ['characters outside base64url', 'a+b.c', 'expected two base64url parts'],
    ['a first part that is not JSON', `${Buffer.from('nope').toString('base64url')}.abc`, 'not base64url-encoded JSON'],
    ['claims without a key id', `${Buffer.from('{}').toString('base64url')}.abc`, 'it names no key id'],
    ['a very long token', `${'a'.repeat(9000)}.b`, 'at most 8000'],
  ])('a malformed token (%s) is refused as such', (_, token, why) => {
    expect(verifyApprovalLink(token, [k1], now)).toMatchObject({ type: 'malformed', message: expect.stringContaining(why) });
  });

  it('claims that are signed but do not parse are refused as malformed', () => {
    expect(verifyApprovalLink(signApprovalLink(k1, { ...claims, digest: 'md5:x' }), [k1], now)).toMatchObject({ type: 'malformed', message: expect.stringContaining('digest') });
  });
});

describe('approval link keys from the environment', () => {
  it('reads id:base64key entries, the first one first', () => {
    const keys = approvalLinkKeysFromEnv({ DURABLE_AGENTS_APPROVAL_LINK_KEYS: `new:${k2.key.toString('base64')}, old:${k1.key.toString('base64')}` });
    expect(keys.map((k) => k.id)).toEqual(['new', 'old']);
  });

  it('refuses a short key and an id used twice, never echoing the key', () => {
    const short = Buffer.from('short').toString('base64');
    expect(() => approvalLinkKeysFromEnv({ DURABLE_AGENTS_APPROVAL_LINK_KEYS: `a:${short}` })).toThrow('DURABLE_AGENTS_APPROVAL_LINK_KEYS (id:base64key,...) entry 1: key: a key is 32 bytes');
    const twice = `a:${k1.key.toString('base64')},a:${k2.key.toString('base64')}`;
    expect(() => approvalLinkKeysFromEnv({ DURABLE_AGENTS_APPROVAL_LINK_KEYS: twice })).toThrow('DURABLE_AGENTS_APPROVAL_LINK_KEYS: approval link key id "a" is used twice');
  });

  it('is empty when unset', () => {
    expect(approvalLinkKeysFromEnv({})).toEqual([]);
  });
});

describe('who answers a link', () => {
  const signed = (approver: ApprovalLinkClaims['approver']): ApprovalLinkClaims => ({ v: 1, kid: 'k1', ...claims, approver });

  it('a link for one person answers as that person without asking', () => {
    expect(linkApprover(signed({ names: ['alice'] }), undefined)).toEqual({ by: 'alice' });
  });

  it('a link for several people needs one of them', () => {
    expect(linkApprover(signed({ names: ['alice', 'bob'] }), ' bob ')).toEqual({ by: 'bob' });
    expect(linkApprover(signed({ names: ['alice', 'bob'] }), '')).toEqual({ type: 'invalid_input', message: 'approver: say who answers; the link is for "alice", "bob"' });
  });

  it('a name the link does not list is a foreign approver', () => {
    expect(linkApprover(signed({ names: ['alice', 'bob'] }), 'mallory')).toEqual({ type: 'foreign_approver', message: '"mallory" may not answer this link; it is for "alice", "bob"' });
  });

  it('a link for a role takes any name, recorded with the role', () => {
    expect(linkApprover(signed({ role: 'on-call' }), 'carol')).toEqual({ by: 'carol (on-call)' });
    expect(linkApprover(signed({ role: 'on-call' }), undefined)).toMatchObject({ type: 'invalid_input' });
  });
});

describe('the decision a link form makes', () => {
  const signed: ApprovalLinkClaims = { v: 1, kid: 'k1', ...claims, approver: { names: ['alice'] } };

  it('approve, reject and edit carry the approver and the link digest', () => {
    expect(linkDecision(signed, { action: 'approve' })).toEqual({ decision: { decision: 'approve', toolCallId: 'call_0_0', by: 'alice', digest } });
    expect(linkDecision(signed, { action: 'reject', reason: ' too much ' })).toEqual({ decision: { decision: 'reject', toolCallId: 'call_0_0', by: 'alice', digest, reason: 'too much' } });
    expect(linkDecision(signed, { action: 'reject' })).toMatchObject({ decision: { reason: 'rejected by alice from an approval link' } });
    expect(linkDecision(signed, { action: 'edit', args: '{"a":1}' })).toEqual({ decision: { decision: 'edit', toolCallId: 'call_0_0', by: 'alice', digest, args: { a: 1 } } });
  });

  it('approve for the rest of the run, and replace with another tool, carry the approver and the link digest too', () => {
    expect(linkDecision(signed, { action: 'approve', always: 'yes' })).toEqual({ decision: { decision: 'approve', toolCallId: 'call_0_0', by: 'alice', digest, always: true } });
    expect(linkDecision(signed, { action: 'replace', name: ' add ', args: '{"a":1,"b":2}' })).toEqual({ decision: { decision: 'replace', toolCallId: 'call_0_0', by: 'alice', digest, name: 'add', args: { a: 1, b: 2 } } });
    expect(linkDecision(signed, { action: 'replace', args: '{}' })).toEqual({ type: 'invalid_input', message: 'name: give the tool that replaces the call (1 to 200 characters)' });
  });

  it('edited arguments that are not JSON, and an unknown action, are refused naming the field', () => {
    expect(linkDecision(signed, { action: 'edit', args: '{nope' })).toMatchObject({ type: 'invalid_input', message: expect.stringMatching(/^args: not JSON/) });
    expect(linkDecision(signed, { action: 'delete' })).toEqual({ type: 'invalid_input', message: 'action: expected approve, reject, edit or replace; got "delete"' });
  });
});

describe('the link page', () => {
  it('shows arguments as text: markup in them is escaped', () => {
    const page = approvalPage({ v: 1, kid: 'k1', ...claims }, { name: 'echo', args: { text: '<script>alert("x")</script>' } });
    expect(page).not.toContain('<script>');
    expect(page).toContain(escapeHtml('"text": "<script>alert(\\"x\\")</script>"'));
  });
});

describe('the body of an approval notice', () => {
  const notice = { workflowId: 'run-1', agent: 'payments', toolCallId: 'call_0_0', name: 'transfer', args: { to: 'acct-7', amount: 500 }, digest, turn: 0 };
  const link = { url: 'https://agents.example.com/approve/t', expiresAt: '2030-01-01T00:00:00.000Z', approver: { role: 'on-call' } };

  it('carries the call and its link for any receiver, and a Slack message with a button to the link', () => {
    const body = approvalNoticeBody(notice, link);
    expect(body).toMatchObject({ type: 'approval_requested', run: 'run-1', toolCallId: 'call_0_0', args: notice.args, digest, link: link.url, linkExpiresAt: link.expiresAt });
    expect(body.text).toBe('transfer waits for a decision in run run-1 (agent payments, call call_0_0): https://agents.example.com/approve/t');
    expect(body.blocks).toContainEqual({ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Review and decide' }, url: link.url, style: 'primary' }] });
    expect(JSON.stringify(body.blocks)).toContain('For anyone answering as on-call; the link works once');
  });

  it('cuts long arguments in the message (the link shows them whole)', () => {
    const body = approvalNoticeBody({ ...notice, args: { note: 'x'.repeat(10_000) } }, link);
    expect(JSON.stringify(body.blocks).length).toBeLessThan(4000);
    expect(JSON.stringify(body.blocks)).toContain('more characters: open the link');
    expect(body.args).toEqual({ note: 'x'.repeat(10_000) });
  });
});
