import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { startDevServer, type DevServer } from '../worker/dev-server';

/** Where the benchmark's results and its dev server's SQLite file live (git-ignored). */
export const resultsDir = resolve(__dirname, 'results');

/** Ports of the benchmark's own dev server, away from the default 7233 a developer may run. */
export const benchPorts = { port: 7433, uiPort: 8433 } as const;

/**
 * Starts a fresh dev server for the benchmark: deletes its previous SQLite file, never
 * reuses a server already on the port.
 *
 * @throws Error when the server does not become ready (or the port is taken).
 */
export async function startBenchServer(log: (line: string) => void): Promise<DevServer> {
  const dbFile = resolve(resultsDir, 'bench.sqlite');
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${dbFile}${suffix}`, { force: true });
  return startDevServer({ ...benchPorts, dbFile, reuseExisting: false, log });
}
