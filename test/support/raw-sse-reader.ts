import { request, type ClientRequest } from 'node:http';
import type { TokenDelta } from '../../contracts/deltas';

/** A delta as one reader got it: from which server, and when. */
export interface ReceivedDelta {
  readonly server: string;
  readonly delta: TokenDelta;
  readonly receivedAt: number;
}

/**
 * A light SSE reader of a run's events stream, many of which fit in one test process: plain
 * `node:http`, event data left unparsed (the seq is the frame's id), deltas parsed. When its server
 * goes away before `end`, it reconnects to the next server `pick` offers with `Last-Event-ID`, as
 * a browser's EventSource does.
 */
export class RawSseReader {
  /** Seqs of the run events received, in order, across reconnects. */
  readonly seqs: number[] = [];
  readonly deltas: ReceivedDelta[] = [];
  /** Servers this reader was connected to, in order. */
  readonly servers: string[] = [];
  /** When the first run event arrived. */
  firstEventAt: number | undefined;
  readonly done: Promise<void>;
  private finish: () => void = () => undefined;
  private ended = false;
  private current: ClientRequest | undefined;

  constructor(
    private readonly workflowId: string,
    private readonly token: string,
    /** The server to (re)connect to; `previous` is the one that went away. */
    private readonly pick: (previous: string | undefined) => string,
  ) {
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
    this.connect(undefined);
  }

  /** Stops reading. */
  close(): void {
    this.ended = true;
    this.current?.destroy();
    this.finish();
  }

  private connect(previous: string | undefined): void {
    if (this.ended) return;
    const server = this.pick(previous);
    this.servers.push(server);
    const last = this.seqs.at(-1);
    const url = new URL(`/api/runs/${encodeURIComponent(this.workflowId)}/events`, server);
    let buffer = '';
    let retried = false;
    const retry = (): void => {
      if (retried || this.ended) return;
      retried = true;
      setTimeout(() => this.connect(server), 50);
    };
    const req = request(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${this.token}`, ...(last !== undefined ? { 'last-event-id': String(last) } : {}) } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        retry();
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          this.frame(server, buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
        }
      });
      res.on('close', retry);
      res.on('error', retry);
    });
    req.on('error', retry);
    req.end();
    this.current = req;
  }

  private frame(server: string, block: string): void {
    if (this.ended) return;
    let event = '';
    let id: string | undefined;
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (event === 'run-event' && id !== undefined) {
      this.firstEventAt ??= Date.now();
      this.seqs.push(Number(id));
    } else if (event === 'delta') this.deltas.push({ server, delta: JSON.parse(data) as TokenDelta, receivedAt: Date.now() });
    else if (event === 'end') this.close();
  }
}
