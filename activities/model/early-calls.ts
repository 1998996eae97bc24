import { Context, log } from '@temporalio/activity';
import { earlyToolCallSignal, type EarlyToolCall, type JsonValue } from '../../contracts';

/** A tool call as the stream has it so far. */
export interface StreamedCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments: string;
}

/** The arguments when they are a complete JSON object (an object cannot grow and stay valid JSON). */
function completeArgs(text: string): JsonValue | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return undefined;
  try {
    return JSON.parse(trimmed) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * Reports tool calls of early tools to the run as soon as they are complete in the stream: named,
 * with an id, and arguments that form a whole JSON object. Each call is reported once; the run
 * decides whether it starts it. A failed report only loses the head start, never the call: the
 * final answer carries every call.
 */
export class EarlyCallReporter {
  private readonly reported = new Set<number>();
  private readonly sends: Promise<void>[] = [];

  constructor(
    private readonly target: { workflowId: string; runId: string; turn: number },
    private readonly tools: ReadonlySet<string>,
    private readonly send: (call: EarlyToolCall) => Promise<void> = (call) =>
      Context.current().client.workflow.getHandle(target.workflowId, target.runId).signal(earlyToolCallSignal, call),
    private readonly warn: (message: string, meta: Record<string, unknown>) => void = (message, meta) => log.warn(message, meta),
  ) {}

  /** Looks at the calls streamed so far. */
  check(calls: readonly (StreamedCall | undefined)[]): void {
    calls.forEach((call, index) => {
      if (!call || this.reported.has(index) || !call.id || !this.tools.has(call.name)) return;
      const args = completeArgs(call.arguments);
      if (args === undefined) return;
      this.reported.add(index);
      const report: EarlyToolCall = { turn: this.target.turn, toolCallId: call.id, name: call.name, args };
      this.sends.push(
        this.send(report).catch((err: unknown) => {
          this.warn('could not report an early tool call; it starts with the final answer instead', { toolCallId: call.id, error: String(err) });
        }),
      );
    });
  }

  /** Waits for the reports in flight (so the run has them before the answer lands). */
  async flush(): Promise<void> {
    await Promise.all(this.sends);
  }
}
