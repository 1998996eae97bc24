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

/** The flags of a dev server's other ports, by option of {@link startDevServer}. */
const otherPortFlags = { uiPort: '--ui-port', httpPort: '--temporal-http-port', metricsPort: '--temporal-metrics-port' } as const;

/** The value of `--flag N` as a port, or undefined without the flag. */
function portFlag(argv: readonly string[], flag: string): number | undefined {
  const at = argv.indexOf(flag);
  if (at < 0) return undefined;
  const raw = argv[at + 1];
  const port = Number(raw);
  if (!raw || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${flag}: expected a port number (1-65535), got ${JSON.stringify(raw ?? '')}`);
  return port;
}

/**
 * The ports of a locally started dev server as a command line pins them: {@link devServerPort},
 * and `--ui-port N` (Web UI; default port + 1000), `--temporal-http-port N` (the server's HTTP
 * API) and `--temporal-metrics-port N` (its Prometheus `/metrics`); those not given are left to
 * {@link startDevServer}'s defaults. Spread into its options.
 *
 * @throws Error naming the flag whose value is not a port number in 1–65535.
 * @example
 * const server = await startDevServer({ ...devServerPorts(process.argv), dbFile: null });
 */
export function devServerPorts(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): { port: number; uiPort?: number; httpPort?: number; metricsPort?: number } {
  const ports: { port: number; uiPort?: number; httpPort?: number; metricsPort?: number } = { port: devServerPort(argv, env) };
  for (const [option, flag] of Object.entries(otherPortFlags) as [keyof typeof otherPortFlags, string][]) {
    const port = portFlag(argv, flag);
    if (port !== undefined) ports[option] = port;
  }
  return ports;
}

/** Removes the dev server's port flags (`--port N`, and those of {@link devServerPorts}) from an argument list (the rest is the caller's). */
export function withoutPortFlag(argv: readonly string[]): string[] {
  const flags: readonly string[] = ['--port', ...Object.values(otherPortFlags)];
  let isValue = false;
  return argv.filter((arg) => {
    const keep = !isValue && !flags.includes(arg);
    isValue = !isValue && flags.includes(arg);
    return keep;
  });
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
