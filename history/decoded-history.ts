import type { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { readHistory } from './paged-history';

type History = temporal.api.history.v1.IHistory;

function isPayload(value: object): value is Payload {
  return 'metadata' in value && 'data' in value && !Array.isArray(value);
}

/**
 * Decodes every payload of a history in place through `codecs` (the last codec first, as the
 * SDK does), so readers of the history (checkpoints, the history view, the fork's replay) see
 * what the workflow saw. Search attributes are never encoded and stay as they are.
 */
export async function decodeHistoryPayloads<H extends History>(history: H, codecs: readonly PayloadCodec[]): Promise<H> {
  if (codecs.length === 0) return history;
  const found: Payload[] = [];
  const visit = (value: unknown, key: string): void => {
    if (!value || typeof value !== 'object' || key === 'searchAttributes') return;
    if (isPayload(value)) {
      found.push(value);
      return;
    }
    for (const [k, child] of Object.entries(value)) visit(child, k);
  };
  visit(history.events, 'events');
  let decoded: Payload[] = found.map((p) => ({ metadata: p.metadata, data: p.data }));
  for (const codec of [...codecs].reverse()) decoded = await codec.decode(decoded);
  found.forEach((payload, i) => {
    const plain = decoded[i];
    if (plain) Object.assign(payload, { metadata: plain.metadata, data: plain.data });
  });
  return history;
}

/**
 * A run's history as the server stores it, with its payloads decoded by the client's codecs
 * (payload encryption), read page by page ({@link readHistory}).
 */
export async function fetchDecodedHistory(client: Client, workflowId: string, runId?: string): Promise<History> {
  const history = await readHistory(client, workflowId, runId);
  return decodeHistoryPayloads(history, client.options.loadedDataConverter.payloadCodecs);
}
