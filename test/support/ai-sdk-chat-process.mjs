// A chat of the real `ai` package, without a UI framework (AbstractChat with the in-memory state
// a framework would keep), on DefaultChatTransport against the server's /api/chat: it resumes a
// run's chat, answers each approval request the way the stdin says (addToolApprovalResponse),
// lets the chat send the answers itself (sendAutomaticallyWhen), and repeats until the run has
// ended. A process of its own: `ai` is an ES module only (see ai-sdk-chat.ts, which starts it).
//
// stdin: JSON { api, chatId, headers, answers: { [toolName]: { approved, reason? } }, maxResponses }
// stdout: JSON { messages, dataParts: [type], requests: [{ method, url }], textDeltas, errors }
import { AbstractChat, DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';

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
  const { api, chatId, headers, answers, maxResponses } = await readStdin();
  const errors = [];
  const dataParts = [];
  const requests = [];
  let textDeltas = 0;
  const counted = [];
  // Each response is read twice: by the chat, and here to count its text-delta chunks.
  const recordingFetch = async (url, init) => {
    requests.push({ method: init?.method ?? 'GET', url: String(url) });
    const response = await fetch(url, init);
    if (!response.body) return response;
    const [mine, theirs] = response.body.tee();
    counted.push(
      new Response(mine).text().then((text) => {
        textDeltas += text.split('\n').filter((line) => line.includes('"type":"text-delta"')).length;
        if (process.env.CHAT_DEBUG) process.stderr.write(`--- ${init?.method ?? 'GET'} ${url} ${response.status}\n${text}\n`);
      }),
    );
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
  const chat = new MemoryChat({
    id: chatId,
    transport: new DefaultChatTransport({ api, headers, fetch: recordingFetch }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onData: (part) => dataParts.push(part.type),
    onError: (err) => errors.push(String(err?.message ?? err)),
  });
  const ended = () => chat.messages.at(-1)?.parts.some((p) => p.type === 'data-end');
  await chat.resumeStream();
  for (let responses = 1; !ended() && errors.length === 0; ) {
    const waiting = (chat.messages.at(-1)?.parts ?? []).filter((p) => p.state === 'approval-requested');
    if (waiting.length === 0) throw new Error(`a response ended without the run's end or an approval request: ${JSON.stringify(chat.messages.at(-1)?.parts.map((p) => [p.type, p.state]))}`);
    if (++responses > maxResponses) throw new Error(`more than ${maxResponses} responses`);
    const before = requests.length;
    for (const part of waiting) {
      const answer = answers[part.type.slice('tool-'.length)] ?? { approved: true };
      await chat.addToolApprovalResponse({ id: part.approval.id, ...answer });
    }
    // The chat sends the answers itself once every request of the message has one.
    while (requests.length === before || chat.status === 'submitted' || chat.status === 'streaming') await sleep(20);
  }
  await Promise.all(counted);
  process.stdout.write(JSON.stringify({ messages: chat.messages, dataParts, requests, textDeltas, errors }));
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err));
  process.exit(1);
});
