import type { PayloadCodec } from '@temporalio/common';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';

type Payload = temporal.api.common.v1.IPayload;

function isPayload(value: object): value is Payload {
  return 'data' in value && 'metadata' in value;
}

/** Every payload under `node` (search attributes left out: the server indexes them, codecs never touch them). */
function collectPayloads(node: unknown, found: { holder: Record<string, unknown>; key: string }[]): void {
  if (!node || typeof node !== 'object') return;
  for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
    if (!child || typeof child !== 'object' || key === 'searchAttributes') continue;
    if (isPayload(child)) found.push({ holder: node as Record<string, unknown>, key });
    else collectPayloads(child, found);
  }
}

/**
 * A history (JSON, as `agentctl history export` writes it) with every payload decoded by
 * `codecs` (the deployment's payload codecs, applied as a client applies them: last first), so
 * an encrypted deployment's recordings can be read. Payloads the codecs do not recognise stay
 * as they are.
 *
 * @throws Error from a codec, e.g. naming a key id the codec lacks.
 */
export async function decodeHistoryJson(json: unknown, codecs: readonly PayloadCodec[]): Promise<unknown> {
  if (codecs.length === 0) return json;
  const history = historyFromJSON(json);
  const found: { holder: Record<string, unknown>; key: string }[] = [];
  collectPayloads(history.events, found);
  for (const { holder, key } of found) {
    let payloads = [holder[key] as Payload];
    for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads as Parameters<PayloadCodec['decode']>[0]);
    holder[key] = payloads[0];
  }
  return JSON.parse(historyToJSON(history)) as unknown;
}
