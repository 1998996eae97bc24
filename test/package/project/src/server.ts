import { startDevServer } from 'durable-agents/testing';

async function main(): Promise<void> {
  const server = await startDevServer({ port: Number(process.env.PORT), dbFile: null, log: () => {} });
  console.log(`ready ${server.address}`);
  process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
}
void main();
