import { randomBytes } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { approvalDigest } from '../../contracts/approval-digest';
import { quoted } from '../../contracts/safe-text';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { readBodyText } from '../request-guard';
import { route, type AnyRoute } from '../routes';
import { linkDecision } from './link-decision';
import { approvalPage, decidedPage, linkPageHeaders } from './link-page';
import { errorPage, refused } from './link-refusals';
import { approverSchema, signApprovalLink, verifyApprovalLink, type ApprovalLinkClaims, type ApprovalLinkKey } from './link-token';
import { undecodableReason } from './undecodable';
import { UsedLinks } from './used-links';

/** Approval links: the keys that sign them, and the address people open them at. */
export interface ApprovalLinkSettings {
  /** The first signs new links; links signed with any are taken. None: links are off (501). */
  readonly keys: readonly ApprovalLinkKey[];
  /**
   * The server's address as people reach it (`https://agents.example.com`), for the links' URLs;
   * default the address the minting request came to.
   */
  readonly publicUrl?: string;
}

/** Longest validity of a link: 30 days. */
const maxExpiresInSeconds = 30 * 24 * 3600;
/** How long the page waits for a worker to say what the run waits on. */
const pendingTimeoutMs = 10_000;

const mintBodySchema = z
  .object({
    toolCallId: z.string().min(1).max(200),
    approver: approverSchema,
    /** Seconds the link is valid; default one day, at most 30 days. */
    expiresIn: z.number().int().min(1).max(maxExpiresInSeconds).default(24 * 3600),
  })
  .strict();

const mintResponseSchema = z.object({ url: z.string(), token: z.string(), expiresAt: z.string(), digest: z.string(), keyId: z.string() });

const notConfigured = 'approval links are off on this server: set DURABLE_AGENTS_APPROVAL_LINK_KEYS (id:base64key, 32 bytes: openssl rand -base64 32), the same on every API server that serves the links';

function checkedToken(c: Context, settings: ApprovalLinkSettings | undefined): ApprovalLinkClaims | Response {
  if (!settings || settings.keys.length === 0) return refused(c, 'unknown_key', notConfigured);
  const checked = verifyApprovalLink(c.req.param('token') ?? '', settings.keys, Math.floor(Date.now() / 1000));
  // An expired token's refusal carries its claims too: ask for the refusal first.
  if ('type' in checked) return refused(c, checked.type, checked.message);
  return checked.claims;
}

/**
 * `POST /api/runs/:id/approval-links` (operator): a signed, single-use, expiring link to decide one
 * waiting call of the run, bound to the call's digest as it waits now.
 */
export function approvalLinkRoutes(ctx: ServerContext): AnyRoute[] {
  const settings = ctx.approvalLinks;
  return [
    route({
      method: 'post',
      path: '/api/runs/:id/approval-links',
      access: 'operator',
      summary: 'Mint a signed, single-use, expiring link that lets the named people decide one waiting call from a browser',
      description:
        'The call must wait for a decision now: the link is bound to its digest (tool and arguments), so it is refused once the call waits with other arguments. ' +
        '`approver`: `{ names: [...] }` (one of these people answers, by name) or `{ role }` (anyone holding the link answers, giving a name, as that role). ' +
        'Whoever holds the URL can answer as an approver it names: send it only to them (docs/human-in-the-loop.md, "Approvals from outside"). 501 when no link keys are configured.',
      tags: ['human inputs'],
      body: mintBodySchema,
      response: mintResponseSchema,
      status: 201,
      handle: async ({ params, body, c }) => {
        const key = settings?.keys[0];
        if (!key) throw new ApiError('not_configured', notConfigured);
        const id = params.id ?? '';
        const { approvals } = await ctx.agents.pendingInputs(id, { subAgents: false, timeoutMs: pendingTimeoutMs });
        const waiting = approvals.find((a) => a.toolCallId === body.toolCallId);
        if (!waiting) {
          const ids = approvals.map((a) => quoted(a.toolCallId, 100)).join(', ');
          throw new ApiError('invalid_input', `body.toolCallId: call ${quoted(body.toolCallId, 100)} does not wait for a decision in run ${quoted(id, 100)}; waiting: ${ids || 'none'}`);
        }
        const now = Math.floor(Date.now() / 1000);
        const digest = waiting.digest ?? approvalDigest(waiting.name, waiting.args);
        const token = signApprovalLink(key, { jti: randomBytes(12).toString('base64url'), run: id, toolCallId: body.toolCallId, digest, approver: body.approver, iat: now, exp: now + body.expiresIn });
        const base = (settings.publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
        return { url: `${base}/approve/${token}`, token, expiresAt: new Date((now + body.expiresIn) * 1000).toISOString(), digest, keyId: key.id };
      },
    }),
  ];
}

/**
 * `GET /approve/:token`: the link's page (nothing is decided by opening it, so link previews are
 * harmless); `POST /approve/:token` (a form): the decision, made as the named approver and bound to
 * the link's digest. No bearer token: the signed link is the credential. Every refusal is an HTML
 * page with a 4xx status naming what was wrong.
 */
export function mountApprovalPages(app: Hono, ctx: ServerContext, maxBodyBytes: number): void {
  const settings = ctx.approvalLinks;
  const used = new UsedLinks();

  app.get('/approve/:token', async (c) => {
    const claims = checkedToken(c, settings);
    if (claims instanceof Response) return claims;
    const earlier = used.get(claims.jti);
    if (earlier) return refused(c, 'used', `this link was used at ${earlier.at} by ${earlier.by} (${earlier.decision})`);
    try {
      const { approvals } = await ctx.agents.pendingInputs(claims.run, { subAgents: false, timeoutMs: pendingTimeoutMs });
      const waiting = approvals.find((a) => a.toolCallId === claims.toolCallId);
      if (!waiting) return refused(c, 'not_waiting', `call ${claims.toolCallId} of run ${claims.run} does not wait for a decision any more: it was decided (from this link or elsewhere), or the run moved on`);
      const digest = waiting.digest ?? approvalDigest(waiting.name, waiting.args);
      if (digest !== claims.digest) {
        return refused(c, 'stale_digest', `call ${claims.toolCallId} waits with other arguments than the ones this link was sent for: the link is for ${claims.digest}, the call waiting is ${digest}; ask for a new link`);
      }
      return c.html(approvalPage(claims, waiting), 200, linkPageHeaders);
    } catch (err) {
      return errorPage(c, err, claims, await undecodableReason(err, ctx.agents.client, claims.run));
    }
  });

  app.post('/approve/:token', async (c) => {
    // The link is the capability, so a form posted from another site is refused (a browser names
    // the page a form came from in Origin): only the link page itself, or a client that sends no
    // Origin (curl, a chat tool's server), may answer.
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== new URL(c.req.url).origin) return refused(c, 'cross_origin', `a form of ${quoted(origin, 100)} may not answer an approval link of this server; open the link and answer on its page`);
    const claims = checkedToken(c, settings);
    if (claims instanceof Response) return claims;
    const media = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (media !== 'application/x-www-form-urlencoded') return refused(c, 'unsupported_media_type', `send the answer as the page's form does (Content-Type: application/x-www-form-urlencoded); got ${media === undefined ? 'no Content-Type' : quoted(media, 100)}`);
    const earlier = used.get(claims.jti);
    if (earlier) return refused(c, 'used', `this link was used at ${earlier.at} by ${earlier.by} (${earlier.decision})`);
    try {
      const form = new URLSearchParams(await readBodyText(c, maxBodyBytes));
      const field = (name: string) => form.get(name) ?? undefined;
      const made = linkDecision(claims, { action: field('action'), approver: field('approver'), reason: field('reason'), args: field('args'), always: field('always'), name: field('name') });
      if ('type' in made) return refused(c, made.type, made.message);
      const { decision } = made;
      await ctx.agents.decide(claims.run, decision);
      const by = decision.by ?? '';
      used.add(claims.jti, { by, decision: decision.decision, at: new Date().toISOString() });
      const kind = decision.decision === 'approve' && decision.always ? 'always' : decision.decision;
      return c.html(decidedPage(claims, kind, by), 200, linkPageHeaders);
    } catch (err) {
      return errorPage(c, err, claims, await undecodableReason(err, ctx.agents.client, claims.run));
    }
  });
}
