import { readFileSync } from 'node:fs';
import type { PayloadCodec } from '@temporalio/common';
import { relative } from 'node:path';
import { corpusHistoryFiles, EmptyCorpusError } from '../history-files';
import { readExecution } from './execution';
import type { Recording } from './recording';
import { RecordingError } from './recording-error';
import { assembleRuns } from './recording-tree';
import { decodeHistoryJson } from './history-codecs';

/** History files or directories (walked for `*.json`), or histories already parsed, each with a name. */
export type HistorySources = string | readonly string[] | readonly { readonly source: string; readonly json: unknown }[];

function parsedHistories(histories: HistorySources): { source: string; json: unknown }[] {
  if (typeof histories !== 'string' && histories.length > 0 && typeof histories[0] === 'object') return [...(histories as readonly { source: string; json: unknown }[])];
  const paths = typeof histories === 'string' ? [histories] : (histories as readonly string[]);
  let files: string[];
  try {
    files = corpusHistoryFiles(paths);
  } catch (err) {
    throw err instanceof EmptyCorpusError ? new RecordingError(err.message) : err;
  }
  return files.map((file) => {
    const source = relative(process.cwd(), file) || file;
    try {
      return { source, json: JSON.parse(readFileSync(file, 'utf8')) as unknown };
    } catch (err) {
      throw new RecordingError(`${source} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
}

/** A history with its payloads decoded by `codecs`; a codec's refusal (e.g. a missing key) names the file. */
async function decoded(history: { source: string; json: unknown }, codecs: readonly PayloadCodec[]): Promise<unknown> {
  try {
    return await decodeHistoryJson(history.json, codecs);
  } catch (err) {
    throw new RecordingError(`${history.source}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `read()`, its RecordingError naming `source` when it does not already. */
function named<T>(source: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof RecordingError && !err.message.includes(source)) throw new RecordingError(`${source}: ${err.message}`);
    throw err;
  }
}

/**
 * Reads every recording first, so bad input is refused before any server starts. The runs to
 * evaluate: the executions of a run that continued as new are read as one run (its input from
 * the first, its result from the last), and a sub-agent run whose parent is given is read as
 * part of its parent's recording (see {@link Recording.children}), not as a run of its own.
 *
 * @param payloadCodecs the recording deployment's payload codecs (e.g. `new EncryptionCodec(keys)`): histories are decoded with them first.
 * @throws RecordingError naming the file: missing, not JSON, not an agent run, encrypted with a key the codecs lack, or one execution of a chain whose other executions are not given.
 * @throws OutsideSupportWindowError when a history was recorded before this version's support window.
 */
export async function loadRecordings(histories: HistorySources, payloadCodecs: readonly PayloadCodec[] = []): Promise<Recording[]> {
  const executions = [];
  for (const history of parsedHistories(histories)) {
    const json = await decoded(history, payloadCodecs);
    executions.push(named(history.source, () => readExecution(json, history.source)));
  }
  return assembleRuns(executions);
}
