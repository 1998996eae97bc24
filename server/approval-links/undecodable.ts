import type { Client } from '@temporalio/client';
import { encryptionKeyIdKey } from '../../config/encryption';

/**
 * Why this server cannot read a run's payloads, when that is why a link page failed: the run is
 * encrypted with a key the server's client lacks (its codec names the key), or the server has no
 * encryption keys at all (the payload converter meets an encoding it does not know; the key id is
 * read from the run's memo as it is stored). Undefined for any other error.
 */
export async function undecodableReason(err: unknown, client: Client, workflowId: string): Promise<string | undefined> {
  const message = err instanceof Error ? err.message : '';
  const lacking = /encrypted with key (\S+), which this process does not have/.exec(message);
  if (lacking) return `run ${workflowId} is encrypted with key ${lacking[1]}, which this server does not have: add it to this server's DURABLE_AGENTS_ENCRYPTION_KEYS (the workers' keys)`;
  if (!/Unknown encoding: binary\/encrypted|this process has no encryption keys/.test(message)) return undefined;
  const keyId = await storedKeyId(client, workflowId);
  return `run ${workflowId} is encrypted${keyId ? ` with key ${keyId}` : ''} and this server has no encryption keys: set DURABLE_AGENTS_ENCRYPTION_KEYS on it (the workers' keys)`;
}

/** The key id the run's stored memo names, read without decoding it; undefined when none does. */
async function storedKeyId(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    const described = await client.workflowService.describeWorkflowExecution({ namespace: client.options.namespace, execution: { workflowId } });
    for (const payload of Object.values(described.workflowExecutionInfo?.memo?.fields ?? {})) {
      const id = payload.metadata?.[encryptionKeyIdKey];
      if (id) return Buffer.from(id).toString('utf8');
    }
  } catch {
    // The reason names no key then; the page still says what to set.
  }
  return undefined;
}
