/**
 * `npm run examples:record [-- --port N]`: records the watchlist example's evaluation corpus, the runs in
 * `recorded-runs/` that `npm run examples:eval` evaluates the example's agents against. Starts a
 * throwaway dev server (127.0.0.1 on `--port` or 7233, in memory) and the example's worker, runs each conversation
 * below as a user would (approving or rejecting where asked), and exports every run's history.
 *
 * Record again only when a conversation is added or changed on purpose: the recordings are what
 * a change to the agent is compared with, so re-recording after a change hides what it changed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { AgentClient, type CallDecision, type RunInput } from 'durable-agents/client';
import { devServerPort, startDevServer } from 'durable-agents/testing';
import { createWatchlistWorker } from './worker';

const corpus = join(__dirname, 'recorded-runs');

/** What the user of a recorded conversation does when asked to approve a call. */
type Answer = (toolCallId: string) => CallDecision;
const approve: Answer = (toolCallId) => ({ decision: 'approve', toolCallId, by: 'recorded user' });
const reject: Answer = (toolCallId) => ({ decision: 'reject', toolCallId, reason: 'not this one today', by: 'recorded user' });

/** One recorded run: its file name, what the user said, the watchlist it starts from, how approvals go. */
interface Conversation {
  readonly name: string;
  readonly message: string;
  readonly watchlist: readonly string[];
  readonly answer?: Answer;
}

const conversations: readonly Conversation[] = [
  { name: '1-add-approved', message: 'Add AAPL and MSFT to my watchlist', watchlist: [], answer: approve },
  { name: '2-add-rejected', message: 'Add TSLA to my watchlist', watchlist: ['AAPL'], answer: reject },
  { name: '3-remove', message: 'Remove MSFT from my watchlist', watchlist: ['AAPL', 'MSFT'] },
  { name: '4-show-unknown-symbol', message: 'How is my watchlist doing?', watchlist: ['NVDA', 'ZZZZ'] },
  { name: '5-no-symbols', message: 'Add something good to my watchlist', watchlist: ['AAPL'] },
];

/** Answers every approval the run asks for with `answer`, until the run has ended. */
async function answerApprovals(agents: AgentClient, workflowId: string, answer: Answer | undefined): Promise<void> {
  for await (const event of agents.follow(workflowId)) {
    if (event.type !== 'approval_requested') continue;
    if (!answer) throw new Error(`${workflowId} asked to approve ${event.name}, which its conversation does not expect`);
    await agents.decide(workflowId, answer(event.toolCallId));
  }
}

async function record(agents: AgentClient, name: string, input: RunInput, answer: Answer | undefined): Promise<void> {
  const { workflowId } = await agents.start(input, { workflowId: `examples-eval-${name}` });
  await answerApprovals(agents, workflowId, answer);
  const result = await agents.result(workflowId);
  writeFileSync(join(corpus, `${name}.json`), `${await agents.exportHistory(workflowId)}\n`);
  console.log(`${name}: ${result.status}: ${result.final?.text ?? ''}`);
}

/** Two runs of one session: the second starts from the state and conversation the first left. */
async function recordSession(agents: AgentClient): Promise<void> {
  const sessionId = 'examples-eval';
  await agents.openSession(sessionId, { agent: 'watchlist', sessionState: { watchlist: ['AAPL'] } });
  for (const [name, content, answer] of [
    ['6-session-add', 'Add NVDA to my watchlist', approve],
    ['7-session-show', 'Show my watchlist', undefined],
  ] as const) {
    const { workflowId } = await agents.sendMessage(sessionId, { content });
    await answerApprovals(agents, workflowId, answer);
    const result = await agents.result(workflowId);
    writeFileSync(join(corpus, `${name}.json`), `${await agents.exportHistory(workflowId)}\n`);
    console.log(`${name}: ${result.status}: ${result.final?.text ?? ''}`);
  }
  await agents.closeSession(sessionId);
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  mkdirSync(corpus, { recursive: true });
  const server = await startDevServer({ port: devServerPort(process.argv.slice(2), {}), dbFile: null });
  try {
    const config = { address: server.address, namespace: server.namespace, taskQueue: 'watchlist-examples-eval' };
    const worker = await createWatchlistWorker(config, undefined);
    await worker.runUntil(async () => {
      const agents = await AgentClient.connect(config);
      for (const c of conversations) {
        await record(agents, c.name, { agent: 'watchlist', messages: [{ role: 'user', content: c.message }], sessionState: { watchlist: [...c.watchlist] } }, c.answer);
      }
      await recordSession(agents);
    });
  } finally {
    await server.stop();
  }
  console.log(`recorded into ${corpus}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
