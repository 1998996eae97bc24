import { readFileSync } from 'node:fs';
import { loadClientConfigProfile, type ClientConfigProfile, type ConfigDataSource } from '@temporalio/envconfig';
import { parseTemporalEnv, type TemporalEnv } from './temporal-env';

/** TLS settings of a connection: a server CA, a server name, a client certificate for mTLS. */
export interface TemporalTlsConfig {
  /** Client certificate (PEM) for mTLS: a path, or the PEM itself in `clientCert`. */
  readonly clientCertPath?: string;
  readonly clientKeyPath?: string;
  readonly clientCert?: string;
  readonly clientKey?: string;
  /** CA that signed the server's certificate, when the system does not trust it. */
  readonly serverCaCertPath?: string;
  readonly serverCaCert?: string;
  /** Name (SNI) to check the server's certificate against, instead of the address's host. */
  readonly serverName?: string;
}

/** Where and how to reach Temporal. */
export interface TemporalConfig {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  /** API key (Temporal Cloud); sent as a bearer token, and turns TLS on. */
  readonly apiKey?: string;
  /** `true`: TLS with the system's trust store; an object: TLS with these settings. */
  readonly tls?: TemporalTlsConfig | true;
  /** gRPC metadata sent with every request (`TEMPORAL_GRPC_META_<NAME>`). */
  readonly grpcMeta?: Readonly<Record<string, string>>;
}

/** Default task queue of agent runs. */
export const defaultTaskQueue = 'durable-agents';

function source(value: ConfigDataSource | undefined): { path?: string; data?: string } {
  if (!value) return {};
  if ('path' in value) return { path: value.path };
  return { data: typeof value.data === 'string' ? value.data : Buffer.from(value.data).toString('utf8') };
}

/** The TLS part of a profile, or undefined for a plain connection. */
function tlsOf(profile: ClientConfigProfile, env: TemporalEnv): TemporalConfig['tls'] {
  const tls = profile.tls;
  if (tls?.disabled) return undefined;
  const cert = source(tls?.clientCert);
  const key = source(tls?.clientKey);
  const ca = source(tls?.serverCACert);
  const settings: TemporalTlsConfig = {
    ...(cert.path ? { clientCertPath: cert.path } : {}),
    ...(cert.data ? { clientCert: cert.data } : {}),
    ...(key.path ? { clientKeyPath: key.path } : {}),
    ...(key.data ? { clientKey: key.data } : {}),
    ...(ca.path ? { serverCaCertPath: ca.path } : {}),
    ...(ca.data ? { serverCaCert: ca.data } : {}),
    ...(tls?.serverName ? { serverName: tls.serverName } : {}),
  };
  if (Object.keys(settings).length > 0) return settings;
  // TLS without settings: asked for explicitly, by a profile's [tls] table, or implied by an API key.
  if (env.TEMPORAL_TLS === true || tls !== undefined || profile.apiKey) return true;
  return undefined;
}

/**
 * The connection config from the environment, validated by one schema ({@link parseTemporalEnv}):
 * TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, TEMPORAL_API_KEY, TEMPORAL_TLS,
 * TEMPORAL_TLS_CLIENT_CERT_PATH / _DATA, TEMPORAL_TLS_CLIENT_KEY_PATH / _DATA,
 * TEMPORAL_TLS_SERVER_CA_CERT_PATH / _DATA, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_*,
 * over the profile TEMPORAL_PROFILE (default `default`) of the Temporal config file
 * (TEMPORAL_CONFIG_FILE, else `~/.config/temporalio/temporal.toml` when it exists) — the same
 * variables and profiles as the `temporal` CLI and the other Temporal SDKs.
 *
 * @throws Error naming the variable (or profile) and what is wrong with its value; never echoes
 *   a key or certificate.
 */
export function temporalConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalConfig {
  const checked = parseTemporalEnv(env);
  let profile: ClientConfigProfile;
  try {
    const overrideEnvVars = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));
    profile = loadClientConfigProfile({ overrideEnvVars, ...(checked.TEMPORAL_PROFILE ? { profile: checked.TEMPORAL_PROFILE } : {}) });
  } catch (err) {
    const file = checked.TEMPORAL_CONFIG_FILE ? ` (TEMPORAL_CONFIG_FILE ${checked.TEMPORAL_CONFIG_FILE})` : '';
    throw new Error(`the Temporal config file${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const tls = tlsOf(profile, checked);
  if (tls !== true && tls && Boolean(tls.clientCertPath ?? tls.clientCert) !== Boolean(tls.clientKeyPath ?? tls.clientKey)) {
    throw new Error('set both TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (or their _DATA forms), or neither: mTLS needs the certificate and its key');
  }
  const grpcMeta = profile.grpcMeta && Object.keys(profile.grpcMeta).length > 0 ? profile.grpcMeta : undefined;
  return {
    address: profile.address ?? '127.0.0.1:7233',
    namespace: profile.namespace ?? 'default',
    taskQueue: checked.TEMPORAL_TASK_QUEUE ?? defaultTaskQueue,
    ...(profile.apiKey ? { apiKey: profile.apiKey } : {}),
    ...(tls ? { tls } : {}),
    ...(grpcMeta ? { grpcMeta } : {}),
  };
}

function pem(what: string, path: string | undefined, data: string | undefined): Buffer | undefined {
  if (data) return Buffer.from(data);
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`${what} ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/**
 * Connection options (client and worker alike) for a config.
 *
 * @throws Error naming a certificate file that cannot be read.
 */
export function connectionOptions(config: TemporalConfig): {
  address: string;
  tls?: true | { clientCertPair?: { crt: Buffer; key: Buffer }; serverRootCACertificate?: Buffer; serverNameOverride?: string };
  apiKey?: string;
  metadata?: Record<string, string>;
} {
  let tls: true | { clientCertPair?: { crt: Buffer; key: Buffer }; serverRootCACertificate?: Buffer; serverNameOverride?: string } | undefined;
  if (config.tls === true) {
    tls = true;
  } else if (config.tls) {
    const t = config.tls;
    const crt = pem('TLS client certificate', t.clientCertPath, t.clientCert);
    const key = pem('TLS client key', t.clientKeyPath, t.clientKey);
    const ca = pem('TLS server CA certificate', t.serverCaCertPath, t.serverCaCert);
    tls = {
      ...(crt && key ? { clientCertPair: { crt, key } } : {}),
      ...(ca ? { serverRootCACertificate: ca } : {}),
      ...(t.serverName ? { serverNameOverride: t.serverName } : {}),
    };
  }
  return {
    address: config.address,
    ...(tls ? { tls } : {}),
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(config.grpcMeta ? { metadata: { ...config.grpcMeta } } : {}),
  };
}
