/**
 * Starts a local server process (llama-server in the real-model test) on a free port of
 * 127.0.0.1 and waits until it answers its health URL. The wait fails at once when the process
 * exits or is killed by a signal, and at a deadline, each time with the last lines of the
 * process's output; `stop` ends the process with bounded waits.
 */
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { freeLoopbackPort } from '../../testing/dev-server-port';

export interface LaunchOptions {
  /** The executable. */
  readonly command: string;
  /** Its arguments, given the port of 127.0.0.1 it is to listen on. */
  readonly args: (port: number) => readonly string[];
  /** How long the process may take to answer the health URL with a 2xx. */
  readonly healthyWithinMs: number;
  /** Default `/health`. */
  readonly healthPath?: string;
  /** The process's name in messages; default the command's file name. */
  readonly name?: string;
}

export interface LaunchedServer {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** How the process ended (e.g. `was killed by SIGILL`), or undefined while it runs. */
  ended(): string | undefined;
  /** The last `lines` lines of its stdout and stderr. */
  logTail(lines?: number): string;
  /** SIGTERM, then SIGKILL when it has not exited within `withinMs`; rejects when even that does not end it. */
  stop(withinMs?: number): Promise<void>;
}

const keptLogChars = 64_000;
const pollMs = 250;


/** Resolves after `ms`, or earlier when `early` settles; leaves no timer behind. */
async function sleep(ms: number, early?: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race(early ? [elapsed, early.then(() => undefined, () => undefined)] : [elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

function describeEnd(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal === 'SIGILL') return 'was killed by SIGILL (an instruction this CPU lacks: a build for another CPU?)';
  if (signal) return `was killed by ${signal}`;
  return `exited with ${code}`;
}

/** Starts the process and resolves once it is healthy; on any failure the process is stopped first. */
export async function launchServer(options: LaunchOptions): Promise<LaunchedServer> {
  const name = options.name ?? basename(options.command);
  const port = await freeLoopbackPort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(options.command, [...options.args(port)], { stdio: ['ignore', 'pipe', 'pipe'] });

  let log = '';
  const keep = (d: Buffer): void => void (log = (log + d.toString()).slice(-keptLogChars));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);

  let end: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      end ??= describeEnd(code, signal);
      resolve();
    });
    child.once('error', (error) => {
      end ??= `failed to start: ${error.message}`;
      resolve();
    });
  });
  // 'close' comes once the output pipes are drained too, so the log is complete.
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });

  const logTail = (lines = 40): string => log.trimEnd().split('\n').slice(-lines).join('\n');
  const failure = async (what: string): Promise<Error> => {
    await sleep(1000, closed);
    return new Error(`${name} ${what}; its last output:\n${logTail() || '(none)'}`);
  };

  const stop = async (withinMs = 5000): Promise<void> => {
    if (end !== undefined) return;
    child.kill('SIGTERM');
    await sleep(withinMs, exited);
    if (end !== undefined) return;
    child.kill('SIGKILL');
    await sleep(withinMs, exited);
    if (end === undefined) throw new Error(`${name} (pid ${child.pid}) did not exit within ${(2 * withinMs) / 1000} s of SIGTERM and SIGKILL`);
  };

  const healthUrl = `${baseUrl}${options.healthPath ?? '/health'}`;
  const deadline = Date.now() + options.healthyWithinMs;
  for (;;) {
    if (end !== undefined) throw await failure(`${end} before it was healthy`);
    const left = deadline - Date.now();
    if (left <= 0) {
      await stop().catch(() => undefined);
      throw await failure(`was not healthy within ${options.healthyWithinMs / 1000} s`);
    }
    const signal = AbortSignal.timeout(Math.max(1, Math.min(2000, left)));
    const healthy = await fetch(healthUrl, { signal }).then(
      async (r) => (await r.arrayBuffer(), r.ok),
      () => false,
    );
    if (healthy && end === undefined) return { baseUrl, ended: () => end, logTail, stop };
    await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())), exited);
  }
}
