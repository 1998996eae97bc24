import { condition, currentUpdateInfo, setHandler } from '@temporalio/workflow';
import { pendingInputsQuery, eventsQuery, childWaitingSignal, earlyToolCallSignal, statusQuery, transcriptQuery, waitForEventsUpdate } from '../../contracts/definitions';
import { runOperationMessages, runOperationNames, type OperationKind, type RunOperationName } from '../../contracts/operations';
import { waitForEventsRequestSchema } from '../../contracts/control';
import { describeIssues, fieldNestedTooDeep } from '../../contracts/json';
import { eventsQueryArgsSchema } from '../../contracts/events';
import { earlyToolCallSchema } from '../../contracts/tools';
import { z } from 'zod';
import { builtOnce } from '../../contracts/lazy';
import { withinBytes } from '../state/event-log';
import type { RunLoop } from './run-loop';
import type { RunState } from '../state/run-state';
import { statusReport } from '../state/run-reports';
import { rejection } from '../kernel/failures';
import { acceptChildWaiting } from './people-waits';
import { runOperationHandlers, type OperationPayload, type RunOperationHandlers } from './run-operations';

const transcriptArgsSchema = builtOnce(() => z.object({ from: z.number().int().nonnegative().default(0), to: z.number().int().nonnegative().optional() }));

interface SafeParser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/**
 * Parses a message payload. Missing payloads count as `{}` so `temporal workflow signal`
 * without `--input` works.
 *
 * @throws ApplicationFailure `invalid_payload` naming the bad field.
 */
function parse<T>(name: string, schema: SafeParser<T>, payload: unknown): T {
  const parsed = schema.safeParse(payload ?? {});
  if (!parsed.success) throw rejection(`invalid ${name} payload: ${describeIssues(parsed.error)}`, 'invalid_payload');
  return parsed.data;
}

/**
 * Registers an operation's signal and update (see run-operations.ts) as the table in
 * contracts/operations.ts names them. The workflow parses a payload once: the update's validator
 * parses and checks it and hands the result to its handler by update id; on replay, where
 * validators do not run, the handler parses.
 */
class OperationRegistrar {
  /** Payloads the validators accepted, by update id, until their handlers take them. */
  private readonly validated = new Map<string, unknown>();

  constructor(
    private readonly run: RunState,
    private readonly handlers: RunOperationHandlers,
  ) {}

  /** The signal: bad input or a refusal becomes a `signal_rejected` event (a signal cannot answer, and must never fail the run). */
  signal(name: RunOperationName): void {
    const op = this.handlers[name] as RunOperationHandlers['pause'];
    setHandler(runOperationMessages[name].signal, (raw: unknown) => {
      this.run.received.signals += 1;
      try {
        const payload = this.parse(name, raw);
        op.check(payload);
        op.apply(payload);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        this.run.emit({ type: 'signal_rejected', signal: name, reason });
      }
    });
  }

  /** The update: rejected by its validator before it enters history, or applied and answered. */
  update(name: RunOperationName): void {
    const op = this.handlers[name] as RunOperationHandlers['pause'];
    setHandler(
      runOperationMessages[name].update as (typeof runOperationMessages)['pause']['update'],
      (raw: unknown): ReturnType<typeof op.answer> => {
        this.run.received.updates += 1;
        const id = currentUpdateInfo()?.id;
        const accepted = id !== undefined && this.validated.has(id);
        const payload = accepted ? (this.validated.get(id) as OperationPayload<'pause'>) : this.parse(name, raw);
        if (accepted) this.validated.delete(id);
        return op.answer(op.apply(payload), payload);
      },
      {
        validator: (raw: unknown) => {
          const payload = this.parse(name, raw);
          op.check(payload);
          const id = currentUpdateInfo()?.id;
          if (id !== undefined) this.validated.set(id, payload);
        },
      },
    );
  }

  private parse(name: RunOperationName, raw: unknown): OperationPayload<'pause'> {
    return parse(name, runOperationMessages[name].payload() as SafeParser<OperationPayload<'pause'>>, raw);
  }
}

/** The operations of one kind, in the table's order. */
function operationsOf(kind: OperationKind): RunOperationName[] {
  return runOperationNames.filter((name) => runOperationMessages[name].kind === kind);
}

/**
 * Registers the queries, signals and updates of a run. Every accepted update and every signal is
 * counted ({@link RunState.received}): the run continues as new before Temporal's limits.
 */
export function registerRunHandlers(loop: RunLoop): void {
  const run = loop.state;
  const operations = new OperationRegistrar(run, runOperationHandlers(loop));
  // The order of registration is part of replay: a signal or update that arrived before the
  // run's first workflow task is delivered when its handler is set, so the handlers of a run
  // are set in the order its recorded histories saw: the human inputs' signals, then their
  // updates, the queries, the control operations' signals (the model activity's early calls
  // among them, before kill's), then their updates, in the order of the operations table.
  const humanInputs = operationsOf('human input');
  const control = operationsOf('control');
  setHandler(pendingInputsQuery, () => run.human.pending());
  for (const name of humanInputs) operations.signal(name);
  for (const name of humanInputs) operations.update(name);
  setHandler(statusQuery, () => statusReport(run));
  setHandler(eventsQuery, (args) => {
    const parsed = eventsQueryArgsSchema().safeParse(args ?? {});
    if (!parsed.success) throw new Error(`invalid events query arguments: ${describeIssues(parsed.error)}`);
    return run.log.page(parsed.data.afterSeq, parsed.data.limit, run.status);
  });
  setHandler(transcriptQuery, (args) => {
    const parsed = transcriptArgsSchema().safeParse(args ?? {});
    if (!parsed.success) throw new Error(`invalid transcript query arguments: ${describeIssues(parsed.error)}`);
    // Paged by bytes as well: read on from `next` (a page may hold fewer messages than asked).
    const messages = withinBytes(run.messages.slice(parsed.data.from, parsed.data.to));
    return { messages, total: run.messages.length, next: parsed.data.from + messages.length };
  });
  for (const name of control) {
    if (name === 'kill') registerEarlyCalls(loop);
    operations.signal(name);
  }
  for (const name of control) operations.update(name);
  setHandler(
    waitForEventsUpdate,
    async (payload) => {
      run.received.updates += 1;
      const request = parse('waitForEvents', waitForEventsRequestSchema(), payload);
      await condition(() => run.log.lastSeq > request.afterSeq || run.isTerminal || loop.continuation.closing, request.timeoutMs);
      return run.log.page(request.afterSeq, request.limit, run.status);
    },
    { validator: (payload) => void parse('waitForEvents', waitForEventsRequestSchema(), payload) },
  );
  // Reports of the run's sub-agent runs: they wait for people, or no longer do (people-waits.ts).
  setHandler(childWaitingSignal, (payload) => acceptChildWaiting(run, payload));
}

/**
 * Reports of the model activity (early dispatch): a late or unusable one is dropped quietly,
 * since the final answer carries every call anyway.
 */
function registerEarlyCalls(loop: RunLoop): void {
  const run = loop.state;
  setHandler(earlyToolCallSignal, (payload) => {
    run.received.signals += 1;
    // Anyone can send it: arguments some thousands of levels deep overflowed the stack in the
    // recursive schema, failing the workflow task at every try, for good (the signal stays in
    // history). Dropped without a patch: dropping emits no command, and a run that met such a
    // report before never completed a workflow task after it.
    if (fieldNestedTooDeep(payload) !== undefined) return;
    const parsed = earlyToolCallSchema().safeParse(payload);
    if (parsed.success && !run.isTerminal) loop.plannerTurns.acceptEarlyCall(parsed.data);
  });
}
