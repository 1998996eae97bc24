import { randomBytes } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { notifyApprovalActivityName, type ApprovalNotice, type ApprovalNoticeDelivery } from '../contracts/approval-notice';
import { signApprovalLink, type ApprovalLinkKey, type Approver } from '../server/approval-links/link-token';
import { signWebhookDelivery, webhookSignatureHeader, webhookTimestampHeader } from '../server/webhooks/webhook-signature';

/** The header that names the key a notice was signed with (its id), beside the signature and timestamp headers. */
export const noticeKeyIdHeader = 'X-Durable-Agents-Key-Id';

/** Where notices go and what link they carry. */
export interface ApprovalNotifierOptions {
  /**
   * The webhook that takes notices (a Slack incoming webhook, a chat bot, your own service). It is
   * a secret of its own for many services: errors name only its origin.
   */
  readonly webhookUrl: string;
  /** Headers sent with each notice (e.g. an Authorization of your receiver). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The approval links the notices carry: signed with the first key (the same keys as the API
   * servers' `DURABLE_AGENTS_APPROVAL_LINK_KEYS`), at the API server's public address, for these
   * approvers, valid this many seconds from delivery (default one day).
   */
  readonly links: {
    readonly keys: readonly ApprovalLinkKey[];
    readonly publicUrl: string;
    readonly approver: Approver;
    readonly expiresIn?: number;
  };
  /**
   * Signs each notice's body so that the receiver can tell it came from your workers: an
   * HMAC-SHA256 with `key` over `<timestamp>.<exact body>`, sent as `X-Durable-Agents-Signature:
   * sha256=<hex>`, with `X-Durable-Agents-Timestamp` (Unix seconds) and `X-Durable-Agents-Key-Id`
   * (`id`, so a receiver that holds several keys picks the right one while you rotate). A key of
   * its own, not an approval link key: a receiver that verifies notices cannot mint links.
   * Absent: notices are sent unsigned.
   */
  readonly signingKey?: { readonly id: string; readonly key: Uint8Array };
  /** Default: the global fetch. */
  readonly fetch?: typeof fetch;
}

/** Longest rendering of the arguments in a notice's message. */
const maxArgsChars = 2500;

function argsText(args: unknown): string {
  const text = JSON.stringify(args, null, 2) ?? 'null';
  return text.length > maxArgsChars ? `${text.slice(0, maxArgsChars)}… (${text.length - maxArgsChars} more characters: open the link)` : text;
}

/**
 * The body of a notice: the call and its link as JSON for any receiver, with `text` and `blocks`
 * of a Slack message (what a Slack incoming webhook reads) beside them.
 */
export function approvalNoticeBody(notice: ApprovalNotice, link: { readonly url: string; readonly expiresAt: string; readonly approver: Approver }): Record<string, unknown> {
  const who = 'names' in link.approver ? link.approver.names.join(', ') : `anyone answering as ${link.approver.role}`;
  const text = `${notice.name} waits for a decision in run ${notice.workflowId} (agent ${notice.agent}, call ${notice.toolCallId}): ${link.url}`;
  return {
    type: 'approval_requested',
    run: notice.workflowId,
    agent: notice.agent,
    toolCallId: notice.toolCallId,
    name: notice.name,
    args: notice.args,
    digest: notice.digest,
    turn: notice.turn,
    link: link.url,
    linkExpiresAt: link.expiresAt,
    approver: link.approver,
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${notice.name}* waits for a decision in run \`${notice.workflowId}\` (call \`${notice.toolCallId}\`)` } },
      { type: 'section', text: { type: 'mrkdwn', text: `\`\`\`${argsText(notice.args)}\`\`\`` } },
      {
        type: 'actions',
        elements: [{ type: 'button', text: { type: 'plain_text', text: 'Review and decide' }, url: link.url, style: 'primary' }],
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `For ${who}; the link works once, until ${link.expiresAt}.` }] },
    ],
  };
}

/**
 * The approval notifier activity (`approvals.notify`): mints a signed link for the waiting call and
 * posts the notice to the webhook. Any failure (the receiver down, a non-2xx answer) fails the
 * attempt, which the run retries with backoff without end; the run never waits for it.
 *
 * @throws ApplicationFailure `not_configured` (non-retryable) without a link key.
 */
export function createApprovalNotifier(options: ApprovalNotifierOptions): Record<string, (notice: ApprovalNotice) => Promise<ApprovalNoticeDelivery>> {
  const key = options.links.keys[0];
  const origin = new URL(options.webhookUrl).origin;
  const send = options.fetch ?? fetch;
  const signing = options.signingKey;
  if (signing && (signing.key.length < 16 || !/^[A-Za-z0-9._-]{1,64}$/.test(signing.id))) {
    throw new Error(`approvalNotifier.signingKey ${JSON.stringify(signing.id.slice(0, 64))}: the id must be 1-64 characters of A-Z a-z 0-9 . _ - and the key at least 16 bytes (32 recommended)`);
  }
  const notify = async (notice: ApprovalNotice): Promise<ApprovalNoticeDelivery> => {
    if (!key) throw ApplicationFailure.nonRetryable('the approval notifier has no link key (links.keys is empty)', 'not_configured');
    const now = Math.floor(Date.now() / 1000);
    const exp = now + (options.links.expiresIn ?? 24 * 3600);
    const token = signApprovalLink(key, { jti: randomBytes(12).toString('base64url'), run: notice.workflowId, toolCallId: notice.toolCallId, digest: notice.digest, approver: options.links.approver, iat: now, exp });
    const link = { url: `${options.links.publicUrl.replace(/\/+$/, '')}/approve/${token}`, expiresAt: new Date(exp * 1000).toISOString(), approver: options.links.approver };
    const body = JSON.stringify(approvalNoticeBody(notice, link));
    const signed: Record<string, string> = signing ? { [webhookTimestampHeader]: String(now), [webhookSignatureHeader]: signWebhookDelivery(signing.key, now, body), [noticeKeyIdHeader]: signing.id } : {};
    let response: Response;
    try {
      response = await send(options.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...options.headers, ...signed },
        body,
        signal: AbortSignal.timeout(20_000),
      });
    } catch (err) {
      throw new Error(`the approval webhook at ${origin} could not be reached: ${err instanceof Error ? err.message : String(err)}`);
    }
    await response.body?.cancel().catch(() => undefined);
    if (!response.ok) throw new Error(`the approval webhook at ${origin} answered ${response.status}; the notice is sent again`);
    return { notifier: `webhook ${origin}`, attempt: Context.current().info.attempt, status: response.status, linkExpiresAt: link.expiresAt, ...(signing ? { keyId: signing.id } : {}) };
  };
  return { [notifyApprovalActivityName]: notify };
}
