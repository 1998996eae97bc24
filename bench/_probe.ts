import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClient } from '../client/agent-client';
import { buildWorkflowBundle } from '../worker/create-worker';
import { startBenchServer } from './server';
import { createBenchWorker } from './worker';
import { runInputFor } from './workload';
import { writeFileSync } from 'node:fs';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = await startBenchServer(() => {});
  try {
    const workflowBundle = await buildWorkflowBundle();
    const nc = await NativeConnection.connect({ address: server.address });
    const connection = await Connection.connect({ address: server.address });
    const worker = await createBenchWorker({ config: { address: server.address, namespace: 'default', taskQueue: 'probe' }, connection: nc, workflowBundle, tuning: JSON.parse(process.env.TUNING ?? '{}') });
    const client = new Client({ connection });
    const agents = new AgentClient(client, 'probe');
    await worker.runUntil(async () => {
      const T = Number(process.env.T ?? 3);
      const t0 = performance.now();
      await agents.start(runInputFor({ turns: T, callsPerTurn: 1 }), { workflowId: 'p1' });
      await agents.result('p1');
      console.log('run ms', performance.now() - t0);
      if (process.env.Q) console.log((await agents.events('p1', 0, 1000)).events.length);
      const h = await client.workflow.getHandle('p1').fetchHistory();
      writeFileSync('/tmp/hist.txt', require('util').inspect(h, { depth: 8 }));
      try { console.log("whole", historyToJSON(h).length); } catch (err) { console.log("whole fail", err); }
      for (const e of h.events ?? []) {
        try { historyToJSON({ events: [e] }); } catch (err) { console.log('fail', e.eventType, Object.keys(e).filter(k => e[k as keyof typeof e] != null)); }
      }
    });
    await connection.close(); await nc.close();
  } finally { await server.stop(); }
}
void main();
