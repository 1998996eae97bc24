import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A UI message as the AI SDK's chat keeps it. */
export interface ChatMessage {
  id: string;
  role: string;
  metadata?: unknown;
  parts: { type: string; state?: string; toolCallId?: string; output?: unknown; text?: string; approval?: { id: string; approved?: boolean; reason?: string }; [key: string]: unknown }[];
}

/** What a chat of the real `ai` package made of a run. */
export interface ChatOutcome {
  messages: ChatMessage[];
  /** Types of the data parts the chat handed to `onData` (transient ones included). */
  dataParts: string[];
  /** The HTTP requests of its transport. */
  requests: { method: string; url: string }[];
  /** Text-delta chunks in all its responses. */
  textDeltas: number;
  errors: string[];
}

const chatScript = join(__dirname, 'ai-sdk-chat-process.mjs');

/**
 * Follows a run as a chat of the real `ai` package (AbstractChat, DefaultChatTransport) in a
 * child process (the package is an ES module only) and answers its approvals by tool name
 * (`approved: true` for a tool not named).
 */
export function chatWithAiSdk(options: {
  api: string;
  chatId: string;
  headers: Record<string, string>;
  answers: Record<string, { approved: boolean; reason?: string }>;
  maxResponses?: number;
  timeoutMs?: number;
}): Promise<ChatOutcome> {
  const { api, chatId, headers, answers } = options;
  return runChatProcess(chatScript, { api, chatId, headers, answers, maxResponses: options.maxResponses ?? 10 }, options.timeoutMs ?? 60_000);
}

/** One thing the user of a session chat does (see ai-sdk-session-chat-process.mjs). */
export type SessionChatStep =
  | { send: string; body?: Record<string, unknown> }
  | { waitFor: 'approval' | 'tool' }
  | { waitFor: 'answers'; count: number }
  | { approve: true }
  | { settle: true };

/** What a session chat of the real `ai` package made of its script. */
export interface SessionChatOutcome {
  messages: ChatMessage[];
  dataParts: string[];
  requests: { method: string; url: string; status?: number }[];
  errors: string[];
}

/**
 * A chat of the real `ai` package over session `sessionId` (POST /api/sessions/:id/chat), in a
 * child process, playing `steps`: messages sent while an answer still streams or waits included.
 */
export function sessionChatWithAiSdk(options: { server: string; sessionId: string; headers: Record<string, string>; body?: Record<string, unknown>; steps: SessionChatStep[]; timeoutMs?: number }): Promise<SessionChatOutcome> {
  const { server, sessionId, headers, body, steps } = options;
  return runChatProcess(sessionChatScript, { server, sessionId, headers, body, steps }, options.timeoutMs ?? 60_000);
}

const sessionChatScript = join(__dirname, 'ai-sdk-session-chat-process.mjs');

/** Runs a chat script in a Node process of its own with `input` on its stdin; answers the JSON it prints. */
function runChatProcess<T>(script: string, input: unknown, timeoutMs: number): Promise<T> {
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const outcome = new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the AI SDK chat did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(stdout) as T);
      else reject(new Error(`the AI SDK chat exited with ${code}: ${stderr.slice(0, 3000)}`));
    });
  });
  child.stdin.end(JSON.stringify(input));
  return outcome;
}
