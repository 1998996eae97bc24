// Reads AI SDK UI message streams with the real `ai` package, as its chat transport does:
// parseJsonEventStream with the package's own chunk schema (a chunk it does not know is an
// error), then readUIMessageStream. It runs in a process of its own because `ai` ships as an
// ES module only, which the test runner's CommonJS sandbox cannot load (see ai-ui-reader.ts, which starts it).
//
// stdin: JSON { sources: [{ body: string } | { url: string, headers?: object }] }
// stdout: one JSON line per event: { type: 'connected', index } once a URL answered,
// then { type: 'result', index, message, chunks, errors } per source.
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from 'ai';

const write = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

async function readStdin() {
  let text = '';
  for await (const piece of process.stdin) text += piece;
  return JSON.parse(text);
}

async function open(source, index) {
  if (source.body !== undefined) return new Response(source.body).body;
  const response = await fetch(source.url, { headers: { accept: 'text/event-stream', ...source.headers } });
  write({ type: 'connected', index, status: response.status });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status} from ${source.url}`);
  return response.body;
}

async function read(source, index) {
  const errors = [];
  const chunks = [];
  let message;
  try {
    const parsed = parseJsonEventStream({ stream: await open(source, index), schema: uiMessageChunkSchema }).pipeThrough(
      new TransformStream({
        transform(result, controller) {
          if (!result.success) throw result.error;
          chunks.push(result.value);
          controller.enqueue(result.value);
        },
      }),
    );
    const messages = readUIMessageStream({ stream: parsed, terminateOnError: true, onError: (err) => errors.push(String(err?.message ?? err)) });
    for await (const snapshot of messages) message = snapshot;
  } catch (err) {
    const text = String(err?.message ?? err);
    if (!errors.includes(text)) errors.push(text);
  }
  write({ type: 'result', index, message, chunks, errors });
}

const { sources } = await readStdin();
await Promise.all(sources.map(read));
