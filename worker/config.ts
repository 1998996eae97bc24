import { readFileSync } from 'node:fs';

/** Where and how to reach Temporal, from the standard `TEMPORAL_*` environment variables. */
export interface TemporalConfig {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly apiKey?: string;
  readonly tls?: { readonly clientCertPath: string; readonly clientKeyPath: string } | true;
}

/** Default task queue of agent runs. */
export const defaultTaskQueue = 'durable-agents';

/**
 * Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, TEMPORAL_API_KEY,
 * TEMPORAL_TLS (true/false), TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH.
 *
 * @throws Error naming the variable when a TLS setting is half given.
 */
export function temporalConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalConfig {
  const cert = env.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const key = env.TEMPORAL_TLS_CLIENT_KEY_PATH;
  if (Boolean(cert) !== Boolean(key)) {
    throw new Error('set both TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH, or neither');
  }
  const apiKey = env.TEMPORAL_API_KEY;
  const tls = cert && key ? { clientCertPath: cert, clientKeyPath: key } : env.TEMPORAL_TLS === 'true' || apiKey ? true : undefined;
  return {
    address: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE ?? defaultTaskQueue,
    ...(apiKey ? { apiKey } : {}),
    ...(tls ? { tls } : {}),
  };
}

/** Connection options (client and worker alike) for a config. */
export function connectionOptions(config: TemporalConfig): {
  address: string;
  tls?: true | { clientCertPair: { crt: Buffer; key: Buffer } };
  apiKey?: string;
} {
  const tls =
    config.tls === true
      ? true
      : config.tls
        ? { clientCertPair: { crt: readFileSync(config.tls.clientCertPath), key: readFileSync(config.tls.clientKeyPath) } }
        : undefined;
  return {
    address: config.address,
    ...(tls ? { tls } : {}),
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
  };
}
