import { ApplicationFailure, getClient } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { describeIssues, messageSchema, transcriptQuery, type Message } from '../../contracts';

/** Reads messages `[from, to)` of a run. */
export type TranscriptFetcher = (run: { workflowId: string; runId: string }, from: number, to: number) => Promise<Message[]>;

const pageSchema = z.object({ messages: z.array(messageSchema), total: z.number().int().nonnegative(), next: z.number().int().nonnegative().optional() });

/**
 * A fetcher over the run's `transcript` query, page by page so no answer grows past gRPC
 * limits. Queries add nothing to workflow history.
 *
 * @param client the Temporal client; default: the activity's worker client (`getClient()`).
 * @throws (the fetcher) ApplicationFailure `model_transcript_unavailable` (retryable) when the query fails or answers nonsense.
 */
export function queryTranscriptFetcher(client: () => Client = getClient, pageSize = 200): TranscriptFetcher {
  return async ({ workflowId, runId }, from, to) => {
    const messages: Message[] = [];
    try {
      const handle = client().workflow.getHandle(workflowId, runId);
      for (let start = from; start < to; ) {
        const end = Math.min(to, start + pageSize);
        const page = pageSchema.safeParse(await handle.query(transcriptQuery, { from: start, to: end }));
        if (!page.success) throw new Error(`the transcript query answered an invalid page: ${describeIssues(page.error)}`);
        messages.push(...page.data.messages);
        // Pages are bounded in bytes too: a short page with `next` means "read on from there".
        if (page.data.messages.length === 0 || page.data.next === undefined) {
          if (page.data.messages.length < end - start) break;
          start = end;
        } else {
          start = page.data.next;
          if (start >= page.data.total) break;
        }
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw ApplicationFailure.retryable(`could not read the transcript of ${workflowId} (run ${runId}) through its query: ${message}`, 'model_transcript_unavailable');
    }
    return messages;
  };
}
