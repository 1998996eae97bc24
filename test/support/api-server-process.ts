import { spawn } from 'node:child_process';
import { compileForTests } from './agentctl-build';

/** An API server (`npm run api`, server/main.ts) in its own process, started by a test. */
export interface ApiServerProcess {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly pid: number;
  /** Everything it wrote so far (for failure messages). */
  output(): string;
  /** SIGKILL: the server dies at once, its connections cut, like a crashed machine. */
  kill9(): Promise<void>;
  /** SIGTERM (closes its streams) and wait for the exit. */
  stop(): Promise<void>;
}

let built: Promise<string> | undefined;

/** Compiles server/main.ts once per test file (esbuild, a second): launches skip tsx. */
function builtServer(): Promise<string> {
  built ??= compileForTests('server/main.ts', 'api-server');
  return built;
}

/**
 * Starts `server/main.ts`, the server users run with `npm run api`, configured by `env`
 * (TEMPORAL_*, DURABLE_AGENTS_*; the port defaults to any free one), and waits for its address.
 */
export async function startApiServerProcess(env: Record<string, string>): Promise<ApiServerProcess> {
  const child = spawn(process.execPath, ['--enable-source-maps', await builtServer()], {
    env: { ...process.env, DURABLE_AGENTS_HTTP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`API server not ready in 30 s: ${output}`)), 30_000);
    const take = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /API and dashboard at (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`API server exited (${code}) before it was ready: ${output}`));
    });
  });
  const stopWith = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url, pid: child.pid ?? -1, output: () => output, kill9: () => stopWith('SIGKILL'), stop: () => stopWith('SIGTERM') };
}
