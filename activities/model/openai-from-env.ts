import type OpenAI from 'openai';

/** Settings read by {@link openAIFromEnv}. */
export interface OpenAIEnv {
  readonly OPENAI_API_KEY?: string;
  readonly OPENAI_BASE_URL?: string;
}

/**
 * The worker's OpenAI client from OPENAI_API_KEY / OPENAI_BASE_URL, or undefined when neither
 * is set (model calls then fail with `model_config`). Secrets stay on the worker: they never
 * enter workflow payloads. The client does not retry by itself: retries belong to the
 * activity's retry policy, so they are visible in history and bounded by it.
 *
 * @example const openai = openAIFromEnv(); // OPENAI_BASE_URL=http://127.0.0.1:8080/v1 for a local server
 */
export function openAIFromEnv(env: OpenAIEnv = process.env): OpenAI | undefined {
  const apiKey = env.OPENAI_API_KEY;
  const baseURL = env.OPENAI_BASE_URL;
  if (!apiKey && !baseURL) return undefined;
  // Loaded here, not with the module: a worker without a model endpoint never loads openai.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: OpenAIClient } = require('openai') as typeof import('openai');
  // Local OpenAI-compatible servers often need no key, but the client insists on one.
  return new OpenAIClient({ apiKey: apiKey || 'not-needed', ...(baseURL ? { baseURL } : {}), maxRetries: 0 });
}
