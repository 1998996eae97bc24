/**
 * What the calls of a run read and change of it: the interface calls/ depends on instead of the
 * run's whole state (RunState satisfies it). Everything here is a field or a method of the run's
 * state with the same meaning; calls/ never sees the conversation, the planner's state or the
 * run's status machine.
 */
import type { JsonValue } from '../../contracts/json';
import type { RunEventDraft } from '../../contracts/events';
import type { ChildRun, ParsedRunInput, RunPolicy } from '../../contracts/run';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { ToolOutput, ToolRequest, WrittenOutput } from '../../contracts/tools';
import type { AgentDefinition } from '../agents/agent-registry';
import type { RunToolsets } from '../agents/toolsets';
import type { Usage } from '../state/budget';
import type { ChildWaits } from '../state/child-waits';
import type { EventLog } from '../state/event-log';
import type { HumanInputs } from '../state/human-inputs';
import type { RunClock } from '../state/run-clock';
import type { RunControl } from '../state/run-control';

export interface CallsRun {
  readonly input: Pick<ParsedRunInput, 'confirmation' | 'sessionId' | 'parent' | 'tenant'>;
  readonly agent: Pick<AgentDefinition, 'name'>;
  readonly policy: RunPolicy;
  /** The run's turn number. */
  readonly turn: number;
  usage: Usage;
  readonly log: Pick<EventLog, 'epoch'>;
  readonly control: RunControl;
  readonly human: HumanInputs;
  readonly clock: Pick<RunClock, 'noteCallEnded' | 'elapsedMs'>;
  readonly toolsets: Pick<RunToolsets, 'observe'>;
  readonly childWaits: Pick<ChildWaits, 'ended'>;
  readonly sessionState: Record<string, JsonValue>;
  /** Calls of the turn not answered yet (for the run's status and a kill). */
  readonly pending: Map<string, { request: ToolRequest; dispatched: boolean }>;
  /** Outputs of the turn in progress, recorded as they arrived. */
  readonly turnOutputs: ReadonlyMap<string, ToolOutput>;
  /** Output paths written so far. */
  readonly outputs: ReadonlyMap<string, WrittenOutput>;
  readonly children: Map<string, ChildRun>;
  /** The agent's tools, with the run's toolsets. */
  tools(): readonly ToolDefinition[];
  emit(draft: RunEventDraft): void;
  refreshStatus(): void;
  /** Records an output as it arrives: session changes, its event. */
  record(output: ToolOutput): ToolOutput;
  writeOutput(path: string, output: ToolOutput): void;
  /** Puts a turn's outputs into the transcript, in call order. */
  commit(outputs: readonly ToolOutput[]): void;
}
