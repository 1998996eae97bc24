import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { FeedItem } from './feed-item';
import type { LiveHub } from './live-hub';
import { formatFrame, type SseFrame } from './sse';
import type { Subscription } from './subscription';

/** One run of the tree being streamed. */
interface Branch {
  readonly workflowId: string;
  readonly path: readonly string[];
  subscription?: Subscription;
  ended: boolean;
}

/** SSE frames of an item of the run at `path`: its events and resets carry the path, deltas too. */
function treeFrames(item: FeedItem, workflowId: string, path: readonly string[]): SseFrame[] {
  const where = { workflowId, path };
  switch (item.type) {
    case 'event':
      return [{ event: 'run-event', data: JSON.stringify({ ...where, event: item.event }) }];
    case 'delta':
      return [{ event: 'delta', data: JSON.stringify({ ...where, delta: item.delta }) }];
    case 'reset':
      return [{ event: 'reset', data: JSON.stringify({ ...where, epoch: item.epoch, fromSeq: item.fromSeq }) }];
    case 'end':
      return [{ event: 'run-end', data: JSON.stringify({ ...where, status: item.status }) }];
  }
}

/**
 * The live events of a run and of every sub-agent run it starts, in one SSE stream: each frame
 * names its run's workflow id and path (call ids from the root). A child is followed from its
 * parent's `child_started` event. `event: end` once every run of the tree has ended. There is
 * no resume by id (the runs have separate seqs): a client that reconnects starts over.
 */
export function streamTree(c: Context, hub: LiveHub, rootId: string): Response {
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    const branches = new Map<string, Branch>();
    let chain: Promise<void> = Promise.resolve();
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const write = (frames: readonly SseFrame[]): void => {
      const text = frames.map(formatFrame).join('');
      if (!text) return;
      chain = chain.then(() => (stream.aborted || stream.closed ? undefined : stream.write(text).then(() => undefined))).catch(() => undefined);
    };
    const maybeFinish = (): void => {
      if ([...branches.values()].every((b) => b.ended)) {
        write([{ event: 'end', data: JSON.stringify({ runs: branches.size }) }]);
        finish();
      }
    };
    const follow = (workflowId: string, path: readonly string[]): void => {
      if (branches.has(workflowId)) return;
      const branch: Branch = { workflowId, path, ended: false };
      branches.set(workflowId, branch);
      branch.subscription = hub.subscribe(
        workflowId,
        0,
        (item) => {
          write(treeFrames(item, workflowId, path));
          if (item.type === 'event' && item.event.type === 'child_started') follow(item.event.workflowId, [...path, item.event.toolCallId]);
        },
        {
          onClose: (reason) => {
            branch.ended = true;
            if (reason !== 'end' && reason !== 'closed') write([{ event: 'error', data: JSON.stringify({ workflowId, path, reason }) }]);
            maybeFinish();
          },
        },
      );
    };
    follow(rootId, []);
    const keepAlive = setInterval(() => write([{ comment: 'ping' }]), 15_000);
    stream.onAbort(() => {
      for (const b of branches.values()) b.subscription?.close('closed');
      finish();
    });
    await done;
    clearInterval(keepAlive);
    await chain;
  });
}
