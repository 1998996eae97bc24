import type { AgentClient } from '../client/agent-client';
import type { OptionSpecs, ParsedArgs } from './args';
import type { ExitCode } from './exit-codes';
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

/** Where a command prints: its output, and progress lines for people (stderr). */
export interface OutputContext {
  readonly out: Output;
  /** Writes one progress line to stderr (absent in some tests). */
  readonly progress?: (line: string) => void;
}

/** What a command runs against: the connected client and where to print. */
export interface CommandContext extends OutputContext {
  readonly agents: AgentClient;
  /** Present when the process has a stdin to read answers from. */
  readonly terminal?: Terminal;
}

/**
 * A command whose arguments were parsed and validated; runs against a server. Resolves to
 * nothing (exit 0) or to the exit code of an outcome that is not an error (e.g. `replay`
 * finding nondeterminism).
 */
export type Action = (ctx: CommandContext) => Promise<void | ExitCode>;

/** An action that needs no server (e.g. replaying a history file); the CLI does not connect. */
export interface OfflineAction {
  readonly offline: (ctx: OutputContext) => Promise<void | ExitCode>;
}

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
  /**
   * How many of the last positionals the parser lets through missing, for commands that
   * check them in `prepare` with a better message (default 0).
   */
  readonly optionalPositionals?: number;
  readonly options: OptionSpecs;
  /** Example invocations (without `agentctl`), shown in help. */
  readonly examples: readonly string[];
  /**
   * Validates the arguments (no server calls; may read a file a flag names) and returns the action.
   * `env` is the CLI's environment, for the variables a flag defaults to (the CLI reads no other).
   *
   * @throws UsageError naming the bad flag or value.
   */
  prepare(args: ParsedArgs, env: NodeJS.ProcessEnv): Action | OfflineAction;
}
