import { temporalConfigFromEnv } from 'durable-agents/client';
import { createAgentWorker } from 'durable-agents/worker';
import { notesAgent } from './agent';
import { tools } from './tools';

async function main(): Promise<void> {
  const worker = await createAgentWorker({
    config: temporalConfigFromEnv(),
    workflowsPath: require.resolve('./workflows'),
    agents: [notesAgent],
    tools,
  });
  console.log('worker ready');
  process.once('SIGTERM', () => worker.shutdown());
  await worker.run();
}
void main();
