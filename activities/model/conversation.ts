import { ApplicationFailure } from '@temporalio/activity';
import type { Message } from '../../contracts';
import type { ParsedModelCallInput } from '../../contracts/model-call';
import { TranscriptCache, TranscriptEntry } from './transcript-cache';
import type { TranscriptFetcher } from './transcript-query';

/** The run's full conversation for a model call, and where its prefix came from. */
export interface Conversation {
  readonly messages: readonly Message[];
  /** `cache`: worker memory; `query`: read through the transcript query; `empty`: nothing to read. */
  readonly source: 'cache' | 'query' | 'empty';
}

async function readPrefix(input: ParsedModelCallInput, cache: TranscriptCache, fetch: TranscriptFetcher): Promise<TranscriptEntry> {
  const { baseCount, baseDigest } = input;
  // A shorter cached prefix (messages were passed by reference) needs only the missing range;
  // the digest check below covers the cached part too, and a mismatch rereads everything.
  const partial = cache.peek(TranscriptCache.key(input.workflowId, input.runId));
  if (partial && partial.length < baseCount) {
    const entry = TranscriptEntry.of(partial.messages);
    entry.append(await fetch(input, entry.length, baseCount));
    if (entry.length === baseCount && entry.digestAt(baseCount) === baseDigest) return entry;
  }
  const entry = TranscriptEntry.of(baseCount === 0 ? [] : await fetch(input, 0, baseCount));
  if (entry.length !== baseCount || entry.digestAt(baseCount) !== baseDigest) {
    throw ApplicationFailure.nonRetryable(
      `the transcript of ${input.workflowId} (run ${input.runId}) does not match what its planner sent: ` +
        `${entry.length} of ${baseCount} messages read, digest ${entry.digestAt(entry.length) ?? '?'} vs ${baseDigest}`,
      'model_transcript_mismatch',
    );
  }
  return entry;
}

/**
 * Rebuilds the conversation of a call: messages `[0, baseCount)` from the cache (or the
 * transcript query on a miss, checked against `baseDigest`), then the call's new messages.
 * The cache then holds the whole conversation for the run's next call.
 *
 * @throws ApplicationFailure `model_transcript_mismatch` when the run's transcript does not match the digest.
 */
export async function conversationFor(input: ParsedModelCallInput, cache: TranscriptCache, fetch: TranscriptFetcher): Promise<Conversation> {
  const key = TranscriptCache.key(input.workflowId, input.runId);
  const cached = cache.lookup(key, input.baseCount, input.baseDigest);
  const entry = cached ?? (await readPrefix(input, cache, fetch));
  const source: Conversation['source'] = cached ? 'cache' : input.baseCount === 0 ? 'empty' : 'query';
  entry.truncate(input.baseCount);
  entry.append(input.newMessages);
  cache.store(key, entry);
  return { messages: entry.messages, source };
}
