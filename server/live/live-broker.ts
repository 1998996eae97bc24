import type { EventsAnnouncement, TokenDelta } from '../../contracts/deltas';

/**
 * What servers tell each other about one run: token deltas a publisher posted, and a worker's
 * word that the run's log grew to `lastSeq`. Either may be missing.
 */
export interface LiveMessage {
  readonly deltas: readonly TokenDelta[];
  readonly lastSeq?: number;
}

/** One message per run of a post: its deltas in order, and the newest seq announced. */
export function messagesByRun(deltas: readonly TokenDelta[], announcements: readonly EventsAnnouncement[]): Map<string, LiveMessage> {
  const messages = new Map<string, { deltas: TokenDelta[]; lastSeq?: number }>();
  const of = (workflowId: string): { deltas: TokenDelta[]; lastSeq?: number } => {
    let message = messages.get(workflowId);
    if (!message) {
      message = { deltas: [] };
      messages.set(workflowId, message);
    }
    return message;
  };
  for (const delta of deltas) of(delta.workflowId).deltas.push(delta);
  for (const { workflowId, lastSeq } of announcements) {
    const message = of(workflowId);
    message.lastSeq = Math.max(lastSeq, message.lastSeq ?? 0);
  }
  return messages;
}

/** Receives the messages other servers published for the runs this one follows, in order. */
export type LiveMessageHandler = (workflowId: string, message: LiveMessage) => void;

/** Counters of a broker, for tests, benchmarks and logs. */
export interface LiveBrokerStats {
  /** Messages handed to the broker, and those it could not take (broker away or slow). */
  published: number;
  publishFailures: number;
  /** Messages of other servers received for followed runs. */
  received: number;
  /** Runs followed now. */
  following: number;
  /** Reads that failed (the broker went away): each is retried after a pause. */
  readFailures: number;
  /** Whether the broker answers now. */
  connected: boolean;
}

/** What a hub tells its broker about the server at start. */
export interface LiveBrokerContext {
  /** The Temporal namespace of the server's runs (brokers name their keys after it). */
  readonly namespace: string;
}

/**
 * How API servers behind one address share what workers post: a delta or an announcement posted
 * to any server reaches every server that follows the run. The hub publishes each posted batch
 * (per run) and follows the runs it has subscribers for; it hands its own posts to its own
 * subscribers directly, so a broker delivers only other servers' messages. Best effort, like the
 * deltas themselves: a broker that is away loses messages (feeds still read the run's events
 * query at their paced interval) and never fails a post, a run or the server.
 *
 * One process needs none. `RedisLiveBroker` (Redis streams) is the one for several processes.
 */
export interface LiveBroker {
  /**
   * Starts delivering messages of followed runs to `onMessage`. Called once, by the hub, with the
   * server's namespace.
   */
  start(onMessage: LiveMessageHandler, server?: LiveBrokerContext): void;
  /** Hands a message to the other servers. Never rejects; a failure is counted. */
  publish(workflowId: string, message: LiveMessage): Promise<void>;
  /**
   * Delivers the run's messages from now on, and answers the deltas other servers received for
   * it recently (at least those of its current model call), so a server that starts following a
   * run mid-call shows the text so far. Never rejects (answers none when the broker is away).
   */
  follow(workflowId: string): Promise<readonly TokenDelta[]>;
  /** Stops delivering the run's messages. */
  unfollow(workflowId: string): void;
  stats(): LiveBrokerStats;
  /** Stops reading and closes the broker's connections. */
  close(): Promise<void>;
}

/** One server's end of an {@link InProcessLiveBus}. */
class InProcessLiveBroker implements LiveBroker {
  private handler: LiveMessageHandler | undefined;
  readonly followed = new Set<string>();
  private readonly counters = { published: 0, publishFailures: 0, received: 0, readFailures: 0 };

  constructor(private readonly bus: InProcessLiveBus) {}

  start(onMessage: LiveMessageHandler): void {
    this.handler = onMessage;
  }

  publish(workflowId: string, message: LiveMessage): Promise<void> {
    this.counters.published += 1;
    this.bus.deliver(this, workflowId, message);
    return Promise.resolve();
  }

  follow(workflowId: string): Promise<readonly TokenDelta[]> {
    this.followed.add(workflowId);
    return Promise.resolve(this.bus.recent(workflowId));
  }

  unfollow(workflowId: string): void {
    this.followed.delete(workflowId);
  }

  receive(workflowId: string, message: LiveMessage): void {
    if (!this.followed.has(workflowId)) return;
    this.counters.received += 1;
    this.handler?.(workflowId, message);
  }

  stats(): LiveBrokerStats {
    return { ...this.counters, following: this.followed.size, connected: true };
  }

  close(): Promise<void> {
    this.bus.detach(this);
    return Promise.resolve();
  }
}

/**
 * Several hubs in one process, as if each were a server behind one address: each gets its end
 * with {@link InProcessLiveBus.connect}. For tests of the fan-out between servers without a
 * broker process; keeps the last `recentPerRun` deltas of each of the last `maxRuns` runs.
 */
export class InProcessLiveBus {
  private readonly ends = new Set<InProcessLiveBroker>();
  private readonly recentDeltas = new Map<string, TokenDelta[]>();

  constructor(private readonly options: { readonly recentPerRun?: number; readonly maxRuns?: number } = {}) {}

  /** A broker for one more hub. */
  connect(): LiveBroker {
    const end = new InProcessLiveBroker(this);
    this.ends.add(end);
    return end;
  }

  deliver(from: InProcessLiveBroker, workflowId: string, message: LiveMessage): void {
    if (message.deltas.length > 0) {
      const kept = this.recentDeltas.get(workflowId) ?? [];
      kept.push(...message.deltas);
      kept.splice(0, Math.max(0, kept.length - (this.options.recentPerRun ?? 1_000)));
      this.recentDeltas.delete(workflowId);
      this.recentDeltas.set(workflowId, kept);
      if (this.recentDeltas.size > (this.options.maxRuns ?? 1_000)) this.recentDeltas.delete(this.recentDeltas.keys().next().value as string);
    }
    for (const end of this.ends) if (end !== from) end.receive(workflowId, message);
  }

  recent(workflowId: string): readonly TokenDelta[] {
    return [...(this.recentDeltas.get(workflowId) ?? [])];
  }

  detach(end: InProcessLiveBroker): void {
    this.ends.delete(end);
  }
}
