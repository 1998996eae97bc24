import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A stream for the real AI SDK reader: SSE text, or a URL it fetches (a live run). */
export type UiStreamSource = { body: string } | { url: string; headers?: Record<string, string> };

/** A tool part of a UI message as the AI SDK builds it (`tool-<name>`). */
export interface UiToolPart {
  type: `tool-${string}`;
  toolCallId: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
}

/** What the AI SDK made of one stream. */
export interface UiReadResult {
  /** The last snapshot of the assistant message (undefined when nothing was read). */
  message?: { id: string; role: string; parts: { type: string; [key: string]: unknown }[] };
  /** The chunks as the reader's schema parsed them. */
  chunks: { type: string; [key: string]: unknown }[];
  /** Errors the reader reported or threw; empty when the stream was read cleanly. */
  errors: string[];
}

/** A batch of streams being read by the real AI SDK. */
export interface UiReading {
  /** Resolves once every URL source answered (the reader is following those runs live). */
  readonly connected: Promise<void>;
  /** One result per source, in order, once every stream ended. */
  readonly results: Promise<UiReadResult[]>;
}

const readerScript = join(__dirname, 'ai-sdk-reader-process.mjs');

/**
 * Reads UI message streams with the real `ai` package (`parseJsonEventStream` with its chunk
 * schema, then `readUIMessageStream`), in a child Node process: the package is an ES module
 * only, and jest's CommonJS sandbox cannot load it.
 */
export function readWithAiSdk(sources: readonly UiStreamSource[], timeoutMs = 120_000): UiReading {
  const child = spawn(process.execPath, [readerScript], { stdio: ['pipe', 'pipe', 'pipe'] });
  const results: UiReadResult[] = new Array<UiReadResult>(sources.length);
  const urls = sources.filter((s) => 'url' in s).length;
  let connectedCount = 0;
  let stderr = '';
  let pending = '';
  let markConnected: () => void = () => undefined;
  const connected = new Promise<void>((resolve) => {
    markConnected = resolve;
    if (urls === 0) resolve();
  });
  const done = new Promise<UiReadResult[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the AI SDK reader did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines.filter(Boolean)) {
        const entry = JSON.parse(line) as { type: 'connected' | 'result'; index: number } & UiReadResult;
        if (entry.type === 'connected' && ++connectedCount === urls) markConnected();
        if (entry.type === 'result') results[entry.index] = { message: entry.message, chunks: entry.chunks, errors: entry.errors };
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && results.filter(Boolean).length === sources.length) resolve(results);
      else reject(new Error(`the AI SDK reader exited with ${code}: ${stderr.slice(0, 2000)}`));
    });
  });
  child.stdin.end(JSON.stringify({ sources }));
  return { connected: Promise.race([connected, done.then(() => undefined, () => undefined)]), results: done };
}

/** A UI message stream's body as the server frames it: `data: <chunk>` events, then `[DONE]`. */
export function sseBody(chunks: readonly unknown[]): string {
  return [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'].join('');
}

/** The text parts of a read message. */
export function textParts(result: UiReadResult): { type: 'text'; text: string }[] {
  return (result.message?.parts ?? []).filter((p): p is { type: 'text'; text: string } => p.type === 'text');
}

/** The tool parts of a read message. */
export function toolParts(result: UiReadResult): UiToolPart[] {
  return (result.message?.parts ?? []).filter((p) => p.type.startsWith('tool-')) as unknown as UiToolPart[];
}
