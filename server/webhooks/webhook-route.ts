import { z } from 'zod';
import { AgentClientError } from '../../client/errors';
import { sessionOperationMessages } from '../../contracts/session';
import { quoted } from '../../contracts/safe-text';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { route, type AnyRoute } from '../routes';
import { webhookMessage } from './webhook-delivery';
import { checkWebhookSignature, defaultWebhookToleranceSeconds, describeSignatureRefusal, webhookSignatureHeader, webhookTimestampHeader } from './webhook-signature';

/** What the webhook route answers once the session took the message. */
const webhookAnswerSchema = () =>
  z.object({
  sessionId: z.string(),
  source: z.string(),
  messageId: z.string(),
  /** The run that handles the message (the one that took it first, for a redelivery). */
  run: sessionOperationMessages.sendMessage.answer(),
  });

/**
 * `POST /api/sessions/:id/webhooks/:source`: a delivery of another system (a CI, a shop, a
 * monitoring alert) becomes the session's next message. No bearer token: the source's secret is
 * the credential, and the delivery proves it holds it by its signature over the timestamp and the
 * exact body (docs/human-in-the-loop.md, "Messages from other systems"). The idempotency key
 * becomes the message id (`<source>:<key>`), so a redelivery is answered with the run that took it
 * first and sends nothing. Answers 202 once the session's sendMessage update completed: the
 * message is in the session's history.
 */
export function webhookRoutes(ctx: ServerContext): AnyRoute[] {
  const sources = ctx.webhooks?.sources ?? [];
  const toleranceSeconds = ctx.webhooks?.toleranceSeconds ?? defaultWebhookToleranceSeconds;
  return [
    route({
      method: 'post',
      path: '/api/sessions/:id/webhooks/:source',
      access: 'public',
      rawBody: true,
      summary: "Post another system's signed delivery into a session as its next message; answers once the session took it",
      description:
        `No bearer token: sign \`<timestamp>.<raw body>\` with the source's secret (HMAC-SHA256) and send \`${webhookSignatureHeader}: sha256=<hex>\` and \`${webhookTimestampHeader}: <Unix seconds>\` ` +
        `(taken within ${toleranceSeconds} s), and an \`Idempotency-Key\` header (or the source's idempotencyField): a redelivery answers the run that took it first. ` +
        '401 for an unknown source, a bad signature or a stale timestamp; 400 for a missing key; 403 for a session the source may not post to; 409 for a closed session.',
      tags: ['sessions'],
      response: webhookAnswerSchema(),
      status: 202,
      handle: async ({ params, c, rawBody }) => {
        const sessionId = params.id ?? '';
        const name = params.source ?? '';
        const configured = sources.filter((s) => s.source === name);
        const source = configured[0];
        if (!source) throw new ApiError('unauthorized', `webhook source ${quoted(name, 100)} is not configured on this server (DURABLE_AGENTS_WEBHOOK_SECRETS or DURABLE_AGENTS_WEBHOOK_SECRETS_FILE)`);
        const delivery = {
          signature: c.req.header(webhookSignatureHeader),
          timestamp: c.req.header(webhookTimestampHeader),
          body: rawBody ?? '',
          secrets: configured.map((s) => s.secret),
          nowSeconds: Math.floor(Date.now() / 1000),
          toleranceSeconds,
        };
        const refusal = checkWebhookSignature(delivery);
        if (refusal) throw new ApiError('unauthorized', describeSignatureRefusal(refusal, name, delivery));
        const message = webhookMessage(source, sessionId, delivery.body, c.req.header('idempotency-key'));
        if ('type' in message) throw new ApiError(message.type, message.message);
        try {
          const run = await ctx.agents.sendMessage(sessionId, message);
          return { sessionId, source: name, messageId: message.messageId, run };
        } catch (err) {
          throw sessionError(err, sessionId, name) ?? err;
        }
      },
    }),
  ];
}

/** A webhook's wording of a session that is not there or takes no more messages; undefined for any other error. */
function sessionError(err: unknown, sessionId: string, source: string): ApiError | undefined {
  if (!(err instanceof AgentClientError)) return undefined;
  const which = `session ${quoted(sessionId, 100)}`;
  if (err.type === 'run_not_found') return new ApiError('run_not_found', `${which} not found (webhook source ${quoted(source, 100)}): open it first (POST /api/sessions)`);
  if (err.type === 'run_ended') return new ApiError('run_ended', `${which} is closed: it takes no more messages (webhook source ${quoted(source, 100)}): ${err.message}`);
  return undefined;
}
