/**
 * `npm run server [-- --port N]`: runs the local Temporal dev server in the foreground until
 * Ctrl-C: 127.0.0.1 on `--port`, else the port of TEMPORAL_ADDRESS, else 7233 (Web UI on port
 * + 1000), data in .temporal/dev.sqlite. A port already taken is reported, never reused.
 */
import { startDevServer } from './dev-server';
import { devServerPort } from './dev-server-port';

async function main(): Promise<void> {
  const server = await startDevServer({ port: devServerPort(process.argv.slice(2)) });
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
