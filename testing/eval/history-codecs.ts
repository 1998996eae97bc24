import type { PayloadCodec } from '@temporalio/common';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { decodeHistoryPayloads } from '../../history/decoded-history';

/**
 * A history (JSON, as `agentctl history export` writes it) with every payload decoded by
 * `codecs` (the deployment's payload codecs, the last first, as a client applies them), so an
 * encrypted deployment's recordings can be read. Payloads the codecs do not recognise stay as
 * they are.
 *
 * @throws Error from a codec, e.g. naming a key id the codec lacks.
 */
export async function decodeHistoryJson(json: unknown, codecs: readonly PayloadCodec[]): Promise<unknown> {
  if (codecs.length === 0) return json;
  const history = await decodeHistoryPayloads(historyFromJSON(json), codecs);
  return JSON.parse(historyToJSON(history)) as unknown;
}
