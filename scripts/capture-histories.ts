/**
 * `npm run histories [-- --version X]`: records the replay corpus of one workflow version.
 *
 * Runs every scenario of test/support/scenarios.ts on a fresh local dev server and writes each
 * history to test/histories/<version>/<scenario>.json (default version: package.json's), then
 * appends their sha256 to test/histories/MANIFEST. Runs of `openScenarios` are captured while
 * still open (paused, awaiting a human, mid-tool) and then terminated.
 *
 * The corpus is append-only: a file that exists is never overwritten (the script stops before
 * running anything). Record a new version after a versioned (`patched`) workflow change; the
 * histories of earlier versions must keep replaying.
 */
import { existsSync, mkdirSync, readFileSync, appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { DurableAgentsPlugin } from '../worker/plugin';
import { createModelActivities } from '../activities/model';
import { FakeOpenAIServer } from '../testing/fake-model';
import { findTestAgent, testAgents } from '../test/support/agents';
import { allToolImplementations } from '../test/support/tools';
import { corpusName, historiesDir, isRetired, manifestPath, readManifest, readRetired, sha256File } from '../test/support/histories';
import { openScenarios, scenarios, type Scenario } from '../test/support/scenarios';
import { agentClient, createTestEnv, uniqueTaskQueue, workflowBundleOption } from '../test/support/test-env';
import { waitFor } from '../test/support/wait';
import { provisionTemporalCli } from '../testing/temporal-cli';

type History = temporal.api.history.v1.IHistory;

function versionArg(): string {
  const i = process.argv.indexOf('--version');
  const version = i >= 0 ? process.argv[i + 1] : (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  if (!version || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) throw new Error(`--version: expected a version like 0.2.0, got ${JSON.stringify(version)}`);
  return version;
}

/** Whether the last workflow task of a history has completed (an open run's history is then stable). */
function settled(history: History): boolean {
  const events = history.events ?? [];
  const last = [...events].reverse().find((e) => e.workflowTaskScheduledEventAttributes || e.workflowTaskStartedEventAttributes || e.workflowTaskCompletedEventAttributes);
  return Boolean(last?.workflowTaskCompletedEventAttributes);
}

function toJson(history: History): string {
  return `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`;
}

async function main(): Promise<void> {
  const version = versionArg();
  if (isRetired(version, readRetired())) throw new Error(`${version} is retired (test/histories/RETIRED): a retired version is never recorded again`);
  const outDir = join(historiesDir, version);
  const all: { scenario: Scenario; open: boolean }[] = [...scenarios.map((scenario) => ({ scenario, open: false })), ...openScenarios.map((scenario) => ({ scenario, open: true }))];
  // Continue-as-new scenarios also write `<name>-continued.json`.
  const targets = all.flatMap(({ scenario }) => [join(outDir, `${scenario.name}.json`), join(outDir, `${scenario.name}-continued.json`)]);
  const taken = targets.filter((file) => existsSync(file));
  if (taken.length) {
    throw new Error(`${taken.map(corpusName).join(', ')} already recorded: the history corpus is append-only; record a new version (--version) instead`);
  }
  const known = new Set(readManifest().map((e) => e.name));

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
    plugins: [new DurableAgentsPlugin({ agents: testAgents, tools: allToolImplementations(), runtime: createModelActivities({ openai, findAgent: findTestAgent }) })],
  });
  const agents = agentClient(env, taskQueue);
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  const write = (name: string, history: History): void => {
    const file = join(outDir, `${name}.json`);
    writeFileSync(file, toJson(history), { flag: 'wx' });
    written.push(file);
    console.log(`${corpusName(file)}: ${history.events?.length ?? 0} events`);
  };
  try {
    await worker.runUntil(async () => {
      for (const { scenario, open } of all) {
        const workflowId = `history-${version}-${scenario.name}`;
        scenario.model?.(fake);
        const { runId } = await agents.start(scenario.input, { workflowId });
        await scenario.drive?.(agents, workflowId);
        const handle = env.client.workflow.getHandle(workflowId, runId);
        if (open) {
          const history = await waitFor(`${scenario.name}: its last workflow task to complete`, async () => {
            const h = await handle.fetchHistory();
            return settled(h) ? h : undefined;
          });
          write(scenario.name, history);
          await handle.terminate('captured as an open run');
          continue;
        }
        await env.client.workflow.getHandle(workflowId).result().catch(() => undefined);
        const latest = (await env.client.workflow.getHandle(workflowId).describe()).runId;
        write(scenario.name, await handle.fetchHistory());
        // A run that continued as new is recorded twice: its first execution (which ends in the
        // hand-over) and its last one (which starts from carried state).
        if (latest !== runId) write(`${scenario.name}-continued`, await env.client.workflow.getHandle(workflowId, latest).fetchHistory());
        if (scenario.recordChildren) {
          for (const child of (await agents.status(workflowId)).children ?? []) {
            await env.client.workflow.getHandle(child.workflowId).result().catch(() => undefined);
            write(`${scenario.name}-child-${child.toolCallId}`, await env.client.workflow.getHandle(child.workflowId).fetchHistory());
          }
        }
      }
    });
  } finally {
    await fake.close();
    await env.teardown();
  }
  const lines = written.filter((file) => !known.has(corpusName(file))).map((file) => `${sha256File(file)}  ${corpusName(file)}\n`);
  appendFileSync(manifestPath, [`# ${version}: recorded by npm run histories on ${new Date().toISOString().slice(0, 10)}.\n`, ...lines].join(''));
  console.log(`appended ${lines.length} entries to test/histories/MANIFEST; commit ${corpusName(outDir)}/ and MANIFEST together`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
