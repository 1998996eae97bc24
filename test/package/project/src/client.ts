import { writeFileSync } from 'node:fs';
import { AgentClient, temporalConfigFromEnv } from 'durable-agents/client';
import { startAgentServer } from 'durable-agents/server';

const token = 'package-test-operator-token';

async function main(): Promise<void> {
  const agents = await AgentClient.connect(temporalConfigFromEnv());
  // The library's HTTP API and dashboard, as a user's service would run them.
  const server = await startAgentServer({ agents, auth: { tokens: [{ name: 'client script', role: 'operator', token }], localDev: false } });
  try {
    const page = await fetch(`${server.url}/`);
    const html = await page.text();
    const asset = /src="(\/assets\/app\.js[^"]*)"/.exec(html)?.[1];
    if (page.status !== 200 || !asset) throw new Error(`the dashboard page is missing (${page.status})`);
    if ((await fetch(`${server.url}${asset}`)).status !== 200) throw new Error(`the dashboard bundle ${asset} is missing`);
    console.log(`dashboard served at ${server.url}/ (${asset})`);

    const { workflowId } = await agents.start({ agent: 'notes', messages: [{ role: 'user', content: 'buy milk' }] });
    for await (const event of agents.follow(workflowId)) {
      if (event.type === 'approval_requested') {
        console.log(`approving ${event.name} ${JSON.stringify(event.args)} over HTTP`);
        const res = await fetch(`${server.url}/api/runs/${encodeURIComponent(workflowId)}/decisions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ decision: 'approve', toolCallId: event.toolCallId }),
        });
        if (res.status !== 200) throw new Error(`approval refused: ${res.status} ${await res.text()}`);
      }
      if (event.type === 'approval_decided' && event.by !== 'client script') throw new Error(`approved by ${event.by}, not by the token's holder`);
    }
    const result = await agents.result(workflowId);
    console.log(`result: ${result.status}: ${result.final?.text ?? ''}`);
    if (result.status !== 'completed' || !result.final?.text.includes('buy milk')) throw new Error('the run did not complete with the note');
    writeFileSync(process.argv[2] ?? 'history.json', await agents.exportHistory(workflowId));
  } finally {
    await server.close();
  }
}
main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
