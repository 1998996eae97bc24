import { writeFileSync } from 'node:fs';
import { AgentClient, temporalConfigFromEnv } from 'durable-agents/client';

async function main(): Promise<void> {
  const agents = await AgentClient.connect(temporalConfigFromEnv());
  const { workflowId } = await agents.start({ agent: 'notes', messages: [{ role: 'user', content: 'buy milk' }] });
  for await (const event of agents.follow(workflowId)) {
    if (event.type === 'approval_requested') {
      console.log(`approving ${event.name} ${JSON.stringify(event.args)}`);
      await agents.decide(workflowId, { decision: 'approve', toolCallId: event.toolCallId, by: 'client script' });
    }
  }
  const result = await agents.result(workflowId);
  console.log(`result: ${result.status}: ${result.final?.text ?? ''}`);
  if (result.status !== 'completed' || !result.final?.text.includes('buy milk')) throw new Error('the run did not complete with the note');
  writeFileSync(process.argv[2] ?? 'history.json', await agents.exportHistory(workflowId));
}
main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
