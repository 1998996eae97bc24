import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { existingTestServer } from '../test/support/test-env';
import { isPortTaken, startDevServer, type DevServer } from '../testing/dev-server';
import { freeLoopbackPort } from '../testing/dev-server-port';

/** Where the benchmark's results and its dev server's SQLite file live (git-ignored). */
export const resultsDir = resolve(__dirname, 'results');

/** Ports of the benchmark's own dev server, away from the default 7233 a developer may run. */
export const benchPorts = { port: 7433, uiPort: 8433 } as const;

/**
 * Starts a fresh dev server for the benchmark: deletes its previous SQLite file, never
 * reuses a server already on the port. When {@link benchPorts} are taken (another benchmark
 * running from another checkout, or the server of one that was killed), it says so and runs
 * on free loopback ports with a SQLite file of its own, so neither disturbs the other. With
 * DURABLE_AGENTS_TEST_SERVER set, uses that server instead (and leaves it running).
 *
 * @throws Error when the server does not become ready.
 */
export async function startBenchServer(log: (line: string) => void): Promise<DevServer> {
  // A cluster (npm run test:cluster -- npm run bench) or any server given to the tests.
  const existing = existingTestServer();
  if (existing) {
    log(`using the Temporal server at ${existing.address} (DURABLE_AGENTS_TEST_SERVER), namespace ${existing.namespace}`);
    return { ...existing, uiUrl: undefined, owned: false, stop: async () => {} };
  }
  // Checked before the SQLite file is deleted: it may belong to a server still running.
  const taken = await isPortTaken(benchPorts.port);
  const ports = taken ? { port: await freeLoopbackPort(), uiPort: await freeLoopbackPort() } : benchPorts;
  if (taken) log(`port ${benchPorts.port} is in use (another benchmark, or a server left over from a killed one: \`ss -ltnp | grep ${benchPorts.port}\`); using port ${ports.port}`);
  const dbFile = resolve(resultsDir, taken ? `bench-${process.pid}.sqlite` : 'bench.sqlite');
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${dbFile}${suffix}`, { force: true });
  const server = await startDevServer({ ...ports, dbFile, reuseExisting: false, log });
  if (!taken) return server;
  return {
    ...server,
    stop: async () => {
      await server.stop();
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${dbFile}${suffix}`, { force: true });
    },
  };
}
