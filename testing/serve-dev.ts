/**
 * `npm run server [-- --port N] [--ui-port N] [--temporal-http-port N] [--temporal-metrics-port N]`:
 * runs the local Temporal dev server in the foreground until Ctrl-C: 127.0.0.1 on `--port`, else
 * the port of TEMPORAL_ADDRESS, else 7233; the Web UI on `--ui-port` (default port + 1000), the
 * server's HTTP API and Prometheus metrics on the ports given (default: free ports the server
 * picks); data in .temporal/dev.sqlite. A port already taken is reported, naming it, never reused.
 */
import { startDevServer } from './dev-server';
import { devServerPorts, withoutPortFlag } from './dev-server-port';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const unknown = withoutPortFlag(argv);
  if (unknown.length > 0) throw new Error(`unknown argument ${JSON.stringify(unknown[0])}; npm run server [-- --port N] [--ui-port N] [--temporal-http-port N] [--temporal-metrics-port N]`);
  const server = await startDevServer(devServerPorts(argv));
  const stop = (): void => {
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
