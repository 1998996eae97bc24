import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { provisionTemporalCli, temporalCliVersion } from './temporal-cli';

/** Arguments every dev server we start gets: no phoning home (version check, Web UI news feed). */
export const devServerSafetyArgs = ['--dynamic-config-value', 'frontend.enableServerVersionCheck=false', '--ui-disable-news-fetch'];

/**
 * SQLite settings for the persisted dev server: write-ahead logging with normal syncs roughly
 * doubled throughput in `npm run bench` (S2), and runs still survive a server restart.
 */
export const sqliteArgs = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

/** Search attributes registered on the dev server so runs can be listed by agent and status. */
export const searchAttributeArgs = ['--search-attribute', 'AgentName=Keyword', '--search-attribute', 'AgentStatus=Keyword'];

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** SQLite file; runs survive a server restart. Default `.temporal/dev.sqlite`. */
  readonly dbFile?: string;
  readonly port?: number;
  readonly uiPort?: number;
  readonly namespace?: string;
  /** Reuse a server already listening on the port instead of failing. Default true. */
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
  stop(): Promise<void>;
}

const repoRoot = resolve(__dirname, '..');

async function isServing(address: string, timeoutMs: number): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: timeoutMs });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
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
 * and returns a handle. Reuses a server already on the port. When no CLI can be found or
 * provisioned, falls back to the SDK's own download of the CLI (needs internet).
 *
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
  const dbFile = resolve(repoRoot, options.dbFile ?? '.temporal/dev.sqlite');
  mkdirSync(dirname(dbFile), { recursive: true });

  if ((options.reuseExisting ?? true) && (await isServing(address, 1500))) {
    log(`using the Temporal server already running at ${address}`);
    return { address, namespace, uiUrl: `http://127.0.0.1:${uiPort}`, owned: false, stop: async () => {} };
  }

  const cli = provisionTemporalCli();
  if (!cli) {
    log('no Temporal CLI found or installable; letting the Temporal SDK download one');
    const env = await TestWorkflowEnvironment.createLocal({
      server: { ip: '127.0.0.1', port, uiPort, dbFilename: dbFile, namespace, extraArgs: [...sqliteArgs, ...devServerSafetyArgs, ...searchAttributeArgs] },
    });
    return { address, namespace, uiUrl: `http://127.0.0.1:${uiPort}`, owned: true, stop: () => env.teardown() };
  }

  log(`starting ${temporalCliVersion(cli.path)} (${cli.source}: ${cli.path}), data in ${dbFile}`);
  const child = spawn(
    cli.path,
    [
      'server', 'start-dev',
      '--ip', '127.0.0.1',
      '--port', String(port),
      '--ui-port', String(uiPort),
      '--db-filename', dbFile,
      '--namespace', namespace,
      '--log-level', 'warn',
      ...sqliteArgs,
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
  log(`Temporal dev server ready at ${address}; Web UI at http://127.0.0.1:${uiPort}`);
  const stop = (): Promise<void> => {
    stopping = true;
    return stopChild(child);
  };
  return { address, namespace, uiUrl: `http://127.0.0.1:${uiPort}`, owned: true, stop };
}
