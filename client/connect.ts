import { Connection } from '@temporalio/client';
import { connectionOptions, type TemporalConfig } from '../config/temporal';
import { ServerUnreachableError } from './unavailable';

/**
 * A connection to `config`'s server. The SDK's own error names no address ("Failed to connect
 * before the deadline"); this one names the address and namespace, and for a client given no
 * config (`defaults`), that it went to the local defaults.
 *
 * @throws ServerUnreachableError naming the address when the server cannot be reached.
 */
export async function connectTo(config: TemporalConfig, defaults: boolean): Promise<Connection> {
  const options = connectionOptions(config);
  try {
    return await Connection.connect(options);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const hint = defaults ? '; AgentClient.connect() without a config goes to a local dev server: pass a config, or use AgentClient.fromEnv() for the TEMPORAL_* variables' : '';
    throw new ServerUnreachableError(`cannot reach the Temporal server at ${config.address} (namespace ${config.namespace}): ${reason}${hint}`, { cause: err });
  }
}
