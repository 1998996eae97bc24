import type { AgentClient } from '../agent-client';
import type { OptionSpecs, ParsedArgs } from './args';
import type { Output } from './output';

/** The terminal a command may prompt on (`interactive`); stdin may be a pipe. */
export interface Terminal {
  /** Where answers are read from, one per line. */
  readonly input: NodeJS.ReadableStream;
  /** Whether `input` is a terminal (end of input then detaches at once, not at the next prompt). */
  readonly isTTY: boolean;
  /** Shows a prompt (no newline). */
  prompt(text: string): void;
}

/** What a command runs against: the connected client and where to print. */
export interface CommandContext {
  readonly agents: AgentClient;
  readonly out: Output;
  /** Present when the process has a stdin to read answers from. */
  readonly terminal?: Terminal;
}

/** A command whose arguments were parsed and validated; runs against a server. */
export type Action = (ctx: CommandContext) => Promise<void>;

/** One `agentctl` command. */
export interface Command {
  readonly name: string;
  /** Other names of the command, e.g. `attach` for `interactive`. */
  readonly aliases?: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  /** More about the command, shown by `help CMD` under the summary. */
  readonly details?: string;
  /** Names of the positionals, e.g. `['RUN']` (a workflow id). */
  readonly positionals: readonly string[];
  readonly options: OptionSpecs;
  /** Example invocations (without `agentctl`), shown in help. */
  readonly examples: readonly string[];
  /**
   * Validates the arguments (no server calls; may read a file a flag names) and returns the action.
   *
   * @throws UsageError naming the bad flag or value.
   */
  prepare(args: ParsedArgs): Action;
}
