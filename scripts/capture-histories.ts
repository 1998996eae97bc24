/**
 * `npm run histories`: runs every scenario of test/support/scenarios.ts on a fresh local dev
 * server and writes each history to test/histories/<scenario>.json, plus one deliberately
 * mutated copy under test/histories/mutated/ that replay must reject. Re-run it after a
 * deliberate, versioned (`patched`) change to the workflow, and commit the result.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createActivities } from '../activities';
import { createModelActivities } from '../activities/model';
import { FakeOpenAIServer } from '../testing/fake-model';
import { findTestAgent, testAgents } from '../test/support/agents';
import { allToolImplementations } from '../test/support/tools';
import { historiesDir, mutatedHistoriesDir } from '../test/support/histories';
import { scenarios } from '../test/support/scenarios';
import { agentClient, createTestEnv, uniqueTaskQueue, workflowBundleOption } from '../test/support/test-env';
import { provisionTemporalCli } from '../worker/temporal-cli';

async function main(): Promise<void> {
  const cli = provisionTemporalCli();
  if (cli) process.env.TEMPORAL_CLI_PATH = cli.path;
  const env = await createTestEnv();
  const fake = await FakeOpenAIServer.start();
  const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'recorder', maxRetries: 0 });
  const taskQueue = uniqueTaskQueue('histories');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundleOption(),
    activities: createActivities({ agents: testAgents, tools: allToolImplementations(), runtime: createModelActivities({ openai, findAgent: findTestAgent }) }),
  });
  const agents = agentClient(env, taskQueue);
  mkdirSync(mutatedHistoriesDir, { recursive: true });
  try {
    await worker.runUntil(async () => {
      for (const scenario of scenarios) {
        const workflowId = `history-${scenario.name}`;
        scenario.model?.(fake);
        const { runId } = await agents.start(scenario.input, { workflowId });
        await scenario.drive?.(agents, workflowId);
        await env.client.workflow.getHandle(workflowId).result().catch(() => undefined);
        const latest = (await env.client.workflow.getHandle(workflowId).describe()).runId;
        // A run that continued as new is recorded twice: its first execution (which ends in the
        // hand-over) and its last one (which starts from carried state).
        const runs = latest === runId ? [[scenario.name, runId]] : [[scenario.name, runId], [`${scenario.name}-continued`, latest]];
        for (const [name, id] of runs) {
          const history = await env.client.workflow.getHandle(workflowId, id).fetchHistory();
          const json = JSON.parse(historyToJSON(history)) as { events: Record<string, unknown>[] };
          writeFileSync(join(historiesDir, `${name}.json`), `${JSON.stringify(json, null, 1)}\n`);
          console.log(`${name}: ${json.events.length} events`);
        }
        if (scenario.name === 'basic') {
          const json = JSON.parse(historyToJSON(await env.client.workflow.getHandle(workflowId, runId).fetchHistory())) as { events: Record<string, unknown>[] };
          writeFileSync(join(mutatedHistoriesDir, 'basic-activity-renamed.json'), `${JSON.stringify(mutate(json), null, 1)}\n`);
        }
      }
    });
  } finally {
    await fake.close();
    await env.teardown();
  }
}

/** Renames the first scheduled activity: the workflow code will schedule something else. */
function mutate(json: { events: Record<string, unknown>[] }): unknown {
  const copy = JSON.parse(JSON.stringify(json)) as { events: Record<string, unknown>[] };
  const scheduled = copy.events.find((e) => e.activityTaskScheduledEventAttributes) as
    | { activityTaskScheduledEventAttributes: { activityType: { name: string } } }
    | undefined;
  if (!scheduled) throw new Error('basic history has no scheduled activity to mutate');
  scheduled.activityTaskScheduledEventAttributes.activityType.name = 'add';
  return copy;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
