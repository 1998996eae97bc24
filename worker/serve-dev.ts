/**
 * `npm run server`: runs the local Temporal dev server (127.0.0.1:7233, Web UI on 8233, data
 * in .temporal/dev.sqlite) in the foreground until Ctrl-C.
 */
import { startDevServer } from './dev-server';

async function main(): Promise<void> {
  const server = await startDevServer({ reuseExisting: false });
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
