import { createServer } from 'node:net';
/**
 * The port a locally started dev server should take: `--port N` on the command line, else the
 * port of TEMPORAL_ADDRESS, else 7233.
 *
 * @throws Error naming the bad value when the port is not an integer in 1–65535.
 */
export function devServerPort(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): number {
  const flag = argv.indexOf('--port');
  const raw = flag >= 0 ? argv[flag + 1] : env.TEMPORAL_ADDRESS ? /:(\d+)$/.exec(env.TEMPORAL_ADDRESS)?.[1] : '7233';
  const source = flag >= 0 ? '--port' : 'TEMPORAL_ADDRESS';
  const port = Number(raw);
  if (!raw || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${source}: expected a port number (1-65535), got ${JSON.stringify(raw ?? env.TEMPORAL_ADDRESS ?? '')}`);
  }
  return port;
}

/** Removes `--port N` from an argument list (the rest is the caller's). */
export function withoutPortFlag(argv: readonly string[]): string[] {
  const flag = argv.indexOf('--port');
  return flag < 0 ? [...argv] : [...argv.slice(0, flag), ...argv.slice(flag + 2)];
}

/** A free TCP port on the loopback (free when asked: bind it right after). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port was given'))));
    });
  });
}
