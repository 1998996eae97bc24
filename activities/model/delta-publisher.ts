import type { DeltaCallSignature, EventsAnnouncement, TokenDelta } from '../../contracts/deltas';
import { checkDeltaKeys, deltaKeysFromEnv, signCall, type DeltaKey } from '../../config/delta-keys';

/**
 * Where the model activity sends token deltas. Implementations must never throw and never
 * block: deltas are a best-effort preview beside the workflow, never part of its history.
 * The server's `LiveHub` is one (worker and server in one process); {@link HttpDeltaPublisher}
 * posts to a server elsewhere.
 */
export interface DeltaSink {
  /** Takes one delta; drops it rather than wait. */
  publish(delta: TokenDelta): void;
  /**
   * Sends what is buffered, waiting at most `timeoutMs`; the model activity calls it once its
   * answer is complete, so subscribers see the last deltas before the answer lands as events.
   */
  flush?(timeoutMs: number): Promise<void>;
  /**
   * Takes a worker's word that a run's event log grew (the bundle's `eventsAppended` sink), so
   * the run's followers read its events now rather than at their next paced read. Best effort
   * like deltas: a lost one only delays a follower by at most its longest wait.
   */
  announce?(announcement: EventsAnnouncement): void;
}

/** Options of {@link HttpDeltaPublisher}. */
export interface HttpDeltaPublisherOptions {
  /** The server's base URL (`http://host:port`) or its `/api/deltas` endpoint. */
  readonly url: string;
  /** A token with the `publisher` role. */
  readonly token?: string;
  /**
   * The delta key (shared with the API servers) that signs each model call's deltas, binding them
   * to the activity that produced them: servers with delta keys refuse deltas without a
   * signature. Deltas without a `runId` go unsigned.
   */
  readonly signingKey?: DeltaKey;
  /** How long deltas gather before a batch is posted. Default 50 ms. */
  readonly intervalMs?: number;
  /** Deltas held at most while the server is slow; the rest are dropped (counted). Default 5000. */
  readonly maxBuffered?: number;
  /** Deadline of one POST. Default 2000 ms. */
  readonly timeoutMs?: number;
}

/** Counters of a publisher. */
export interface DeltaPublisherStats {
  published: number;
  sent: number;
  dropped: number;
  failedPosts: number;
}

/**
 * Batches token deltas and posts them to the server's `POST /api/deltas` every ~50 ms, one
 * request at a time. Best effort: a full buffer drops deltas (counted in `stats.dropped`), a
 * failed or slow POST drops its batch; nothing is retried and nothing reaches the caller.
 *
 * @example
 * const deltas = new HttpDeltaPublisher({ url: 'http://127.0.0.1:8080', token: process.env.PUBLISHER_TOKEN });
 * createModelActivities({ openai: openAIFromEnv(), deltas });
 */
export class HttpDeltaPublisher implements DeltaSink {
  readonly stats: DeltaPublisherStats = { published: 0, sent: 0, dropped: 0, failedPosts: 0 };
  private buffer: TokenDelta[] = [];
  /** Runs whose logs grew since the last batch: the newest seq of each. */
  private announced = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly endpoint: string;

  /** @throws Error when `signingKey` is not 32 bytes. */
  constructor(private readonly options: HttpDeltaPublisherOptions) {
    if (options.signingKey) checkDeltaKeys([options.signingKey], 'signingKey');
    const base = options.url.replace(/\/+$/, '');
    this.endpoint = base.endsWith('/api/deltas') ? base : `${base}/api/deltas`;
  }

  publish(delta: TokenDelta): void {
    this.stats.published += 1;
    if (this.buffer.length >= (this.options.maxBuffered ?? 5000)) {
      this.stats.dropped += 1;
      return;
    }
    this.buffer.push(delta);
    this.sendSoon();
  }

  announce(announcement: EventsAnnouncement): void {
    const { workflowId, lastSeq } = announcement;
    if (!this.announced.has(workflowId) && this.announced.size >= (this.options.maxBuffered ?? 5000)) return;
    this.announced.set(workflowId, Math.max(lastSeq, this.announced.get(workflowId) ?? 0));
    this.sendSoon();
  }

  /** Posts the buffer once the batch interval has passed. */
  private sendSoon(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.send();
    }, this.options.intervalMs ?? 50);
    this.timer.unref?.();
  }

  async flush(timeoutMs: number): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    let deadline: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      deadline = setTimeout(resolve, timeoutMs);
    });
    try {
      await Promise.race([this.send(), expired]);
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Posts the buffer (after the POST in flight, if any). */
  private async send(): Promise<void> {
    while (this.inFlight) await this.inFlight;
    if (this.buffer.length === 0 && this.announced.size === 0) return;
    const deltas = this.buffer;
    const events = [...this.announced].map(([workflowId, lastSeq]) => ({ workflowId, lastSeq }));
    this.buffer = [];
    this.announced = new Map();
    this.inFlight = this.post(deltas, events).finally(() => {
      this.inFlight = undefined;
    });
    await this.inFlight;
  }

  private async post(deltas: TokenDelta[], events: EventsAnnouncement[]): Promise<void> {
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}) },
        body: JSON.stringify({ deltas, dropped: this.stats.dropped, ...(events.length ? { events } : {}), ...this.signed(deltas) }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 2000),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      this.stats.sent += deltas.length;
    } catch {
      this.stats.failedPosts += 1;
      this.stats.dropped += deltas.length;
    }
  }

  /** The batch's `signatures`: one per model call with a `runId`, when there is a signing key. */
  private signed(deltas: readonly TokenDelta[]): { signatures?: DeltaCallSignature[] } {
    const key = this.options.signingKey;
    if (!key) return {};
    const signatures = new Map<string, DeltaCallSignature>();
    for (const { workflowId, runId, activityId, attempt } of deltas) {
      if (runId === undefined) continue;
      const id = JSON.stringify([workflowId, runId, activityId, attempt]);
      if (!signatures.has(id)) signatures.set(id, { workflowId, runId, activityId, attempt, keyId: key.id, signature: signCall(key.key, { workflowId, runId, activityId, attempt }) });
    }
    return signatures.size > 0 ? { signatures: [...signatures.values()] } : {};
  }
}

/** Settings read by {@link deltaPublisherFromEnv}. */
export interface DeltaPublisherEnv {
  readonly DURABLE_AGENTS_DELTAS_URL?: string;
  readonly DURABLE_AGENTS_DELTAS_TOKEN?: string;
  readonly DURABLE_AGENTS_DELTAS_KEYS?: string;
}

/**
 * The worker's delta publisher from `DURABLE_AGENTS_DELTAS_URL` (the server's URL),
 * `DURABLE_AGENTS_DELTAS_TOKEN` (a `publisher` token) and `DURABLE_AGENTS_DELTAS_KEYS` (the delta
 * keys, `id:base64key,...`: it signs with the first), or undefined when no URL is set (then no
 * deltas are published).
 *
 * @throws Error naming the malformed entry of `DURABLE_AGENTS_DELTAS_KEYS`.
 */
export function deltaPublisherFromEnv(env: DeltaPublisherEnv = process.env): HttpDeltaPublisher | undefined {
  const url = env.DURABLE_AGENTS_DELTAS_URL?.trim();
  if (!url) return undefined;
  const token = env.DURABLE_AGENTS_DELTAS_TOKEN?.trim();
  const [signingKey] = deltaKeysFromEnv(env);
  return new HttpDeltaPublisher({ url, ...(token ? { token } : {}), ...(signingKey ? { signingKey } : {}) });
}
