import type { Message } from '../../contracts';
import { chainDigest, emptyDigest } from '../../workflows/planners/llm';

/** One run's transcript as this worker last sent it to the model, with the digest of every prefix. */
export class TranscriptEntry {
  readonly messages: Message[] = [];
  private readonly digests: string[] = [emptyDigest];

  /** An entry holding these messages. */
  static of(messages: readonly Message[]): TranscriptEntry {
    const entry = new TranscriptEntry();
    entry.append(messages);
    return entry;
  }

  get length(): number {
    return this.messages.length;
  }

  /** Digest of messages `[0, count)`, or undefined when the entry is shorter. */
  digestAt(count: number): string | undefined {
    return this.digests[count];
  }

  /** Drops messages from `count` on (a retried call resends what followed). */
  truncate(count: number): void {
    this.messages.length = Math.min(this.messages.length, count);
    this.digests.length = this.messages.length + 1;
  }

  append(messages: readonly Message[]): void {
    let digest = this.digests[this.digests.length - 1] ?? emptyDigest;
    for (const message of messages) {
      digest = chainDigest(digest, [message]);
      this.messages.push(message);
      this.digests.push(digest);
    }
  }
}

/** Hit and miss counters of a {@link TranscriptCache}. */
export interface TranscriptCacheStats {
  hits: number;
  misses: number;
  evictions: number;
}

/** Options of {@link TranscriptCache}. */
export interface TranscriptCacheOptions {
  /** Runs kept; the least recently used is evicted beyond it. 0 disables caching. Default 256. */
  readonly maxRuns?: number;
}

/**
 * Worker memory of the transcripts sent to the model, keyed by workflow id + run id, least
 * recently used first out. Only an optimisation: a miss (another worker, a restart, a reset,
 * an eviction) is answered from the run's `transcript` query. Nothing the workflow decides
 * depends on it: the workflow only ever sees the model's answers, which are in history.
 */
export class TranscriptCache {
  private readonly entries = new Map<string, TranscriptEntry>();
  private readonly maxRuns: number;
  readonly stats: TranscriptCacheStats = { hits: 0, misses: 0, evictions: 0 };

  constructor(options: TranscriptCacheOptions = {}) {
    this.maxRuns = options.maxRuns ?? 256;
  }

  /** Cache key of a run. */
  static key(workflowId: string, runId: string): string {
    return `${workflowId}\u0000${runId}`;
  }

  /** The run's entry if it holds messages `[0, count)` with this digest (a hit), else undefined (a miss). */
  lookup(key: string, count: number, digest: string): TranscriptEntry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.digestAt(count) === digest) {
      this.stats.hits += 1;
      this.touch(key, entry);
      return entry;
    }
    this.stats.misses += 1;
    return undefined;
  }

  /** The run's entry whatever it holds, without counting a hit or miss (to extend it on a miss). */
  peek(key: string): TranscriptEntry | undefined {
    return this.entries.get(key);
  }

  /** Stores (or refreshes) a run's entry as the most recently used. */
  store(key: string, entry: TranscriptEntry): void {
    if (this.maxRuns <= 0) return;
    this.touch(key, entry);
    while (this.entries.size > this.maxRuns) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
      this.stats.evictions += 1;
    }
  }

  /** Forgets every run (the next call of each run reads its transcript through the query). */
  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private touch(key: string, entry: TranscriptEntry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }
}
