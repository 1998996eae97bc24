/**
 * The dashboard's HTTP client: every call sends the session's token as a bearer token and
 * turns an API error body (`{ error: { type, message } }`) into an {@link ApiFailure}.
 */

const tokenKey = 'durable-agents.token';

/** The token of this browser tab (sessionStorage: gone when the tab closes). */
export function storedToken(): string | undefined {
  return sessionStorage.getItem(tokenKey) ?? undefined;
}

/** Keeps `token` for this tab, or forgets it. */
export function storeToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(tokenKey, token);
  else sessionStorage.removeItem(tokenKey);
}

/** An error answered by the API (or the network), with the API's type and message. */
export class ApiFailure extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

/** Called when the API refuses the token (401): the app goes back to the login form. */
let onUnauthorized: (failure: ApiFailure) => void = () => undefined;

/** Sets what happens when any request answers 401. */
export function setUnauthorizedHandler(handler: (failure: ApiFailure) => void): void {
  onUnauthorized = handler;
}

async function failureOf(response: Response): Promise<ApiFailure> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { type?: string; message?: string } };
    if (body.error?.message) return new ApiFailure(body.error.type ?? 'failure', body.error.message, response.status);
  } catch {
    // not JSON: fall through to the status line
  }
  return new ApiFailure('failure', `${response.status} ${response.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`, response.status);
}

/**
 * Calls the API. `body` is sent as JSON (POST). Every write says `Content-Type: application/json`,
 * with or without a body: the server refuses writes that do not (415). Answers the parsed JSON
 * body (undefined for 204).
 *
 * @throws ApiFailure with the API's error type and message.
 */
export async function api<T>(path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = storedToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined || (method !== 'GET' && method !== 'HEAD')) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch (err) {
    throw new ApiFailure('unavailable', `the server cannot be reached: ${err instanceof Error ? err.message : String(err)}`, 0);
  }
  if (!response.ok) {
    const failure = await failureOf(response);
    if (response.status === 401) onUnauthorized(failure);
    throw failure;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** `path` with the token as `?access_token=` (EventSource and WebSocket cannot send headers). */
export function withAccessToken(path: string): string {
  const token = storedToken();
  if (!token) return path;
  return `${path}${path.includes('?') ? '&' : '?'}access_token=${encodeURIComponent(token)}`;
}

/** `/api/runs/<id>` with the id escaped. */
export function runPath(workflowId: string, rest = ''): string {
  return `/api/runs/${encodeURIComponent(workflowId)}${rest}`;
}

/** The message of anything thrown, for display. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
