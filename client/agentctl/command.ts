import type { AgentClient } from '../agent-client';
import type { OptionSpecs, ParsedArgs } from './args';
import type { Output } from './output';

/** What a command runs against: the connected client and where to print. */
export interface CommandContext {
  readonly agents: AgentClient;
  readonly out: Output;
}

/** A command whose arguments were parsed and validated; runs against a server. */
export type Action = (ctx: CommandContext) => Promise<void>;

/** One `agentctl` command. */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
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
