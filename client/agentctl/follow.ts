import { formatEvent } from '../format';
import type { CommandContext } from './command';

/**
 * Prints a run's events as they arrive (one line each: formatEvent, or JSON with `--json`)
 * until the run ends, or until `limit` events were printed.
 *
 * @returns the seq of the last event printed (or `afterSeq`).
 */
export async function followEvents(ctx: CommandContext, runId: string, afterSeq = 0, limit?: number): Promise<number> {
  let last = afterSeq;
  let printed = 0;
  if (limit !== undefined && limit <= 0) return last;
  const onRewind = ({ epoch, fromSeq }: { epoch: string; fromSeq: number }): void =>
    ctx.out.emit({ rewound: { epoch, fromSeq } }, () => `-- the run was rewound (run ${epoch}): events from seq ${fromSeq} on are replaced --`);
  for await (const event of ctx.agents.follow(runId, { afterSeq, onRewind })) {
    ctx.out.emit(event, () => formatEvent(event));
    last = event.seq;
    printed++;
    if (limit !== undefined && printed >= limit) break;
  }
  return last;
}
