import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { existingTestServer } from '../test/support/test-env';
import { isPortTaken, startDevServer, type DevServer } from '../testing/dev-server';

/** Where the benchmark's results and its dev server's SQLite file live (git-ignored). */
export const resultsDir = resolve(__dirname, 'results');

/** Ports of the benchmark's own dev server, away from the default 7233 a developer may run. */
export const benchPorts = { port: 7433, uiPort: 8433 } as const;

/**
 * Starts a fresh dev server for the benchmark: deletes its previous SQLite file, never
 * reuses a server already on the port. With DURABLE_AGENTS_TEST_SERVER set, uses that server
 * instead (and leaves it running).
 *
 * @throws Error when the port is taken (e.g. by the server of a benchmark that was killed) or
 * the server does not become ready.
 */
export async function startBenchServer(log: (line: string) => void): Promise<DevServer> {
  // A cluster (npm run test:cluster -- npm run bench) or any server given to the tests.
  const existing = existingTestServer();
  if (existing) {
    log(`using the Temporal server at ${existing.address} (DURABLE_AGENTS_TEST_SERVER), namespace ${existing.namespace}`);
    return { ...existing, uiUrl: undefined, owned: false, stop: async () => {} };
  }
  // Checked before the SQLite file is deleted: it may belong to a server still running.
  if (await isPortTaken(benchPorts.port)) {
    throw new Error(
      `port ${benchPorts.port} is in use: a dev server left over from a killed benchmark? ` +
        `Find it with \`ss -ltnp | grep ${benchPorts.port}\` and stop that process.`,
    );
  }
  const dbFile = resolve(resultsDir, 'bench.sqlite');
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${dbFile}${suffix}`, { force: true });
  return startDevServer({ ...benchPorts, dbFile, reuseExisting: false, log });
}
