import { Connection } from '@temporalio/client';
import { connectionOptions, defaultTaskQueue, type TemporalConfig } from '../config/temporal';
import { ServerUnreachableError } from './unavailable';
import { warnUnreadEnvOnce } from './unread-env';

/** Where {@link AgentClient.connect} goes without a config: a local dev server's defaults. */
const localConfig: TemporalConfig = { address: '127.0.0.1:7233', namespace: 'default', taskQueue: defaultTaskQueue };

/**
 * A connection to `config`'s server, or without one to a local dev server ({@link localConfig}),
 * warning once when TEMPORAL_* variables are set: until 0.13 `connect()` read them, and a project
 * that still sets them would go elsewhere unawares. The SDK's own error names no address ("Failed
 * to connect before the deadline"); this one names the address and namespace, and without a
 * config, that the client went to the local defaults.
 *
 * @returns the connection and the config it was made with.
 * @throws ServerUnreachableError naming the address when the server cannot be reached.
 */
export async function connectTo(config: TemporalConfig | undefined): Promise<{ connection: Connection; target: TemporalConfig }> {
  const target = config ?? localConfig;
  if (config === undefined) warnUnreadEnvOnce(process.env, target);
  const options = connectionOptions(target);
  try {
    return { connection: await Connection.connect(options), target };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const hint = config === undefined ? '; AgentClient.connect() without a config goes to a local dev server: pass a config, or use AgentClient.fromEnv() for the TEMPORAL_* variables' : '';
    throw new ServerUnreachableError(`cannot reach the Temporal server at ${target.address} (namespace ${target.namespace}): ${reason}${hint}`, { cause: err });
  }
}
