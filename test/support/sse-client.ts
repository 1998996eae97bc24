/** One SSE message as a client sees it. */
export interface SseMessage {
  readonly event: string;
  readonly id?: string;
  readonly data: string;
  /** When it arrived (ms since the epoch), for latency figures. */
  readonly receivedAt: number;
}

/**
 * A minimal SSE client for tests: reads a stream into `messages` (comments skipped) and waits
 * for conditions on what arrived. `close()` disconnects, as a browser tab closing would.
 */
export class SseClient {
  readonly messages: SseMessage[] = [];
  /** Response headers, once connected. */
  headers: Headers | undefined;
  /** Resolves when the server ends the stream (or the client closed it). */
  readonly done: Promise<void>;
  private readonly abort = new AbortController();
  private waiters: (() => void)[] = [];
  private ended = false;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.done = this.read(url, headers).finally(() => {
      this.ended = true;
      this.notify();
    });
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private async read(url: string, headers: Record<string, string>): Promise<void> {
    try {
      const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: this.abort.signal });
      this.headers = response.headers;
      if (!response.ok || !response.body) throw new Error(`SSE ${url}: HTTP ${response.status} ${await response.text()}`);
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          this.parse(block);
        }
        this.notify();
      }
    } catch (err) {
      if (!this.abort.signal.aborted) throw err;
    }
  }

  private parse(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0 && id === undefined) return;
    this.messages.push({ event, ...(id !== undefined ? { id } : {}), data: data.join('\n'), receivedAt: Date.now() });
  }

  /** Waits until `predicate` holds for the messages so far; fails naming `what` if the stream ends first. */
  async until(what: string, predicate: (messages: readonly SseMessage[]) => boolean, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.messages)) {
      if (this.ended) throw new Error(`the stream ended before ${what}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Disconnects. */
  close(): void {
    this.abort.abort();
  }

  /** The messages of one event type, data parsed as JSON. */
  data<T = unknown>(event: string): T[] {
    return this.messages.filter((m) => m.event === event).map((m) => JSON.parse(m.data) as T);
  }
}
