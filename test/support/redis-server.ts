import { spawn, spawnSync } from 'node:child_process';
import { freeLoopbackPort } from '../../testing/dev-server-port';

/** A throwaway Redis started by a test. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** SIGKILL, as a crashed broker. */
  kill(): Promise<void>;
  /** Stops it and waits for the exit. */
  stop(): Promise<void>;
}


/**
 * Starts Debian's `redis-server` on 127.0.0.1 and a random port, in memory only (`--save ''
 * --appendonly no`), and waits until it accepts connections.
 *
 * @throws Error saying how to install it when `redis-server` is not on the PATH: tests that need
 *   a broker fail, never skip.
 */
export async function startTestRedis(port?: number): Promise<TestRedis> {
  if (spawnSync('redis-server', ['--version']).error) {
    throw new Error('redis-server is not installed: the live broker tests need it (Debian/Ubuntu: apt-get install redis-server; CI installs it in .ci/run)');
  }
  const chosen = port ?? (await freeLoopbackPort());
  const child = spawn('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server not ready in 10 s: ${output}`)), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}) before it was ready: ${output}`));
    });
  });
  const stopWith = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url: `redis://127.0.0.1:${chosen}`, port: chosen, kill: () => stopWith('SIGKILL'), stop: () => stopWith('SIGTERM') };
}
