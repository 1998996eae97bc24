/**
 * The main job: `npm run demo`. Starts (or reuses) a local Temporal dev server, runs a worker
 * in this process, starts a watchlist agent run, prints its events live and its result.
 * Needs no API key: the watchlist agent plans with deterministic rules. With OPENAI_API_KEY or
 * OPENAI_BASE_URL set, the demo runs `watchlist-llm` instead, planned by that model endpoint
 * (OPENAI_MODEL picks the model; default the agent's).
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { allToolImplementations } from '../agents';
import { temporalConfigFromEnv } from '../worker/config';
import { createAgentWorker } from '../worker/create-worker';
import { startDevServer } from '../worker/dev-server';
import { AgentClient } from './agent-client';
import { formatEvent } from './format';

async function main(): Promise<void> {
  // Worker lifecycle logs would drown the run's own events; keep warnings and errors.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const message = process.argv.slice(2).join(' ') || 'Add AAPL, MSFT and NVDA to my watchlist';
  const server = await startDevServer();
  const config = { ...temporalConfigFromEnv(), address: server.address, namespace: server.namespace };
  const worker = await createAgentWorker({ config, tools: allToolImplementations() });
  try {
    await worker.runUntil(async () => {
      const agents = await AgentClient.connect(config);
      const sessionState = { watchlist: ['TSLA'] };
      const useModel = Boolean(process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL);
      const agent = useModel ? 'watchlist-llm' : 'watchlist';
      const plannerOptions = useModel && process.env.OPENAI_MODEL ? { plannerOptions: { model: process.env.OPENAI_MODEL } } : {};
      const { workflowId } = await agents.start({ agent, messages: [{ role: 'user', content: message }], sessionState, ...plannerOptions });
      console.log(`agent ${agent}: ${useModel ? 'planned by the model at OPENAI_BASE_URL / OpenAI' : 'planned by rules (set OPENAI_API_KEY or OPENAI_BASE_URL to use a model)'}`);
      console.log(`started run ${workflowId}: "${message}" (session watchlist: ${sessionState.watchlist.join(', ')})`);
      if (server.uiUrl) console.log(`watch it in the Web UI: ${server.uiUrl}/namespaces/${server.namespace}/workflows/${workflowId}`);
      for await (const event of agents.follow(workflowId)) {
        console.log(formatEvent(event));
        // add_to_watchlist requires confirmation (seed 003); the demo plays the human and approves.
        if (event.type === 'approval_requested') {
          console.log(`        -> approving ${event.name}(${event.toolCallId}) as the demo user`);
          await agents.decide(workflowId, { decision: 'approve', toolCallId: event.toolCallId, by: 'demo user' });
        }
      }
      const result = await agents.result(workflowId);
      console.log(`\nresult: ${result.status}: ${result.final?.text ?? ''}`);
      console.log(`session state: ${JSON.stringify(result.sessionState)}`);
      console.log(`cost: ${result.iterations} iterations, ${result.cost.toolCalls.used} tool calls, ${result.cost.elapsedMs} ms`);
    });
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
