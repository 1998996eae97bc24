/**
 * The README's first command on a fresh machine, `npm run demo`, as a user runs it: it starts its
 * own Temporal dev server, runs the watchlist worker, the HTTP API and one watchlist run
 * (approving as the demo user) and prints the result. Here on a free port, with its data in a
 * directory of its own (a developer's demo server keeps `.temporal/` of the checkout).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freeLoopbackPort } from '../../testing/dev-server-port';
import { isPortTaken } from '../../testing/dev-server';

const repo = resolve(__dirname, '../..');

/** A free port whose Web UI port (port + 1000, the demo's default) is free too, as the demo checks it. */
async function demoPort(): Promise<number> {
  for (;;) {
    const port = await freeLoopbackPort();
    if (port + 1000 <= 65535 && !(await isPortTaken(port + 1000))) return port;
  }
}

interface Ended {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function runDemo(cwd: string, args: readonly string[]): Promise<Ended> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The checkout's TypeScript setup and tools, from a working directory of the demo's own.
    TSX_TSCONFIG_PATH: join(repo, 'tsconfig.json'),
    DURABLE_AGENTS_TOOLS_DIR: join(repo, '.tools'),
  };
  // A fresh machine: no server, model or tokens configured.
  for (const name of ['TEMPORAL_ADDRESS', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'DURABLE_AGENTS_TOKENS', 'DURABLE_AGENTS_TOKENS_FILE']) delete env[name];
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(join(repo, 'node_modules/tsx/dist/loader.mjs')).href, join(repo, 'examples/watchlist/demo.ts'), ...args],
      { cwd, env, timeout: 100_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

it('npm run demo starts its own dev server and API, on the ports pinned, approves as the demo user and prints the completed run', async () => {
  const port = await demoPort();
  // Every port pinned, as beside other servers: the dev server's Web UI, HTTP API and metrics, and the demo's API.
  const [uiPort, temporalHttpPort, metricsPort, apiPort] = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];
  const pins = ['--ui-port', uiPort, '--temporal-http-port', temporalHttpPort, '--temporal-metrics-port', metricsPort, '--http-port', apiPort].map(String);
  const cwd = mkdtempSync(join(tmpdir(), 'demo-'));
  const demo = await runDemo(cwd, ['--port', String(port), ...pins, 'Add AAPL to my watchlist']).finally(() => rmSync(cwd, { recursive: true, force: true }));
  expect({ code: demo.code, stderr: demo.code === 0 ? '' : demo.stderr }).toEqual({ code: 0, stderr: '' });
  expect(demo.stdout).toContain(`Temporal dev server started by the demo at 127.0.0.1:${port}`);
  expect(demo.stderr).toContain(
    `Temporal dev server ready at 127.0.0.1:${port}; Web UI at http://127.0.0.1:${uiPort}; HTTP API at http://127.0.0.1:${temporalHttpPort}; metrics at http://127.0.0.1:${metricsPort}/metrics`,
  );
  expect(demo.stdout).toContain(`HTTP API and dashboard at http://127.0.0.1:${apiPort}/ `);
  expect(demo.stdout).toContain('started run run-watchlist-');
  expect(demo.stdout).toMatch(/: "Add AAPL to my watchlist" \(session watchlist: TSLA\)$/m);
  expect(demo.stdout).toMatch(/-> approving add_to_watchlist\(call_0_0\) as the demo user/);
  expect(demo.stdout).toMatch(/^result: completed: Your watchlist: TSLA, AAPL\. Latest prices: TSLA [\d.]+; AAPL [\d.]+\.$/m);
}, 120_000);
