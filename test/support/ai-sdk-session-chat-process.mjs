// A chat of the real `ai` package (AbstractChat with in-memory state, DefaultChatTransport) over a
// session, chat id = session id: it plays a script of what a user does, sending a message while
// the answer to the one before is still streaming or waits for an approval (double-texting)
// included. A process of its own: `ai` is an ES module only (see ai-sdk-chat.ts, which starts it).
//
// stdin: JSON { server, sessionId, headers, body, steps, timeoutMs } where each step is
//   { send: text, body? }  sends a user message (chat.sendMessage), not waiting for its answer
//   { waitFor: 'approval' | 'tool' | 'answers', count? }  until a message shows an approval request, a
//     tool part, or until `count` assistant messages have started
//   { approve: true }      answers every approval request (addToolApprovalResponse) and sends them
//   { settle: true }       until every request ended
// stdout: JSON { messages, dataParts: [type], requests: [{ method, url, status }], errors }
import { appendFileSync } from 'node:fs';
import { AbstractChat, DefaultChatTransport } from 'ai';

class MemoryChat extends AbstractChat {
  constructor(init) {
    const state = {
      status: 'ready',
      error: undefined,
      messages: [],
      pushMessage: (message) => state.messages.push(message),
      popMessage: () => state.messages.pop(),
      replaceMessage: (index, message) => (state.messages[index] = message),
      snapshot: (thing) => structuredClone(thing),
    };
    super({ ...init, state });
  }
}

async function readStdin() {
  let text = '';
  for await (const piece of process.stdin) text += piece;
  return JSON.parse(text);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const { server, sessionId, headers, body, steps } = await readStdin();
  const errors = [];
  const dataParts = [];
  const requests = [];
  const recordingFetch = async (url, init) => {
    const request = { method: init?.method ?? 'GET', url: String(url) };
    requests.push(request);
    const response = await fetch(url, init);
    request.status = response.status;
    if (!process.env.CHAT_DEBUG || !response.body) return response;
    const started = Date.now();
    const [mine, theirs] = response.body.tee();
    void new Response(mine).text().then((text) => appendFileSync(process.env.CHAT_DEBUG, `--- ${Date.now()} ${request.method} ${url} ${response.status} ${Date.now() - started} ms\n${text}\n`));
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
  const api = `${server}/api/sessions/${encodeURIComponent(sessionId)}/chat`;
  const chat = new MemoryChat({
    id: sessionId,
    transport: new DefaultChatTransport({ api, headers, body, fetch: recordingFetch, prepareReconnectToStreamRequest: () => ({ api: `${api}/stream` }) }),
    onData: (part) => dataParts.push(part.type),
    onError: (err) => errors.push(String(err?.message ?? err)),
  });
  const sent = [];
  const parts = () => chat.messages.flatMap((m) => (m.role === 'assistant' ? m.parts : []));
  const until = async (what, done) => {
    while (!done()) {
      if (errors.length > 0) throw new Error(`the chat failed while waiting for ${what}: ${errors.join('; ')}`);
      await sleep(20);
    }
  };
  for (const step of steps) {
    if (step.send !== undefined) sent.push(chat.sendMessage({ text: step.send }, step.body ? { body: step.body } : undefined));
    else if (step.waitFor === 'approval') await until('an approval request', () => parts().some((p) => p.state === 'approval-requested'));
    else if (step.waitFor === 'tool') await until('a tool call', () => parts().some((p) => p.type.startsWith('tool-') && p.state === 'input-available'));
    else if (step.waitFor === 'answers') await until(`${step.count} answers`, () => chat.messages.filter((m) => m.role === 'assistant').length >= step.count);
    else if (step.approve) {
      for (const part of parts().filter((p) => p.state === 'approval-requested')) await chat.addToolApprovalResponse({ id: part.approval.id, approved: true });
      // Sent by hand: the chat sends answers itself only while no response streams.
      sent.push(chat.sendMessage());
    } else if (step.settle) {
      await Promise.all(sent);
      await until('the chat to settle', () => chat.status === 'ready' || chat.status === 'error');
    }
  }
  process.stdout.write(JSON.stringify({ messages: chat.messages, dataParts, requests, errors }));
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err));
  process.exit(1);
});
