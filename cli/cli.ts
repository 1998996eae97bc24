import { AgentClient, clientOptionsFromEnv } from '../client/agent-client';
import { ServerUnreachableError } from '../client/unavailable';
import type { TemporalConfig } from '../config/temporal';
import { parseCommandArgs, splitCommand } from './args';
import type { Command, Terminal } from './command';
import { commands, findCommand } from './commands';
import { resolveConfig } from './connection';
import { ExitCode, UsageError, errorMessage, exitCodeFor } from './exit-codes';
import { Output } from './output';
import { commandUsage, generalUsage } from './usage';

/** A connected client and how to let go of it. */
export interface Connected {
  readonly agents: AgentClient;
  close(): Promise<void>;
}

/** The process around the CLI; tests pass fakes. */
export interface CliIo {
  /** Receives each output line (without newline). */
  stdout(line: string): void;
  /** Receives each error line (without newline). */
  stderr(line: string): void;
  /** The environment: the only one the CLI reads (TEMPORAL_*, DURABLE_AGENTS_*, OPENAI_*). */
  readonly env: NodeJS.ProcessEnv;
  /** stdin and prompts, for `interactive`; absent when there is none. */
  readonly terminal?: Terminal;
  /** Connects a client to `config`'s server, with the client options `env` sets (encryption, tracing). */
  connect(config: TemporalConfig, env: NodeJS.ProcessEnv): Promise<Connected>;
}

/**
 * Connects to Temporal with an {@link AgentClient}, its payload codecs and tracing as `env` sets them.
 *
 * @throws Error naming the address and namespace when the server cannot be reached.
 */
export async function connectAgents(config: TemporalConfig, env: NodeJS.ProcessEnv): Promise<Connected> {
  let agents: AgentClient;
  try {
    agents = await AgentClient.connect(config, clientOptionsFromEnv(env));
  } catch (err) {
    // The client's own error names the address (ServerUnreachableError); anything else, here.
    const reason = err instanceof ServerUnreachableError ? err.message : `cannot reach the Temporal server at ${config.address} (namespace ${config.namespace}): ${err instanceof Error ? err.message : String(err)}`;
    throw new Error(`${reason}; is it running? Set TEMPORAL_ADDRESS or --address to where it listens`);
  }
  return { agents, close: () => agents.client.connection.close() };
}

function resolveCommand(name: string): Command {
  const command = findCommand(name);
  if (!command) throw new UsageError(`unknown command '${name}'; run 'agentctl --help' for the list`);
  return command;
}

/** `agentctl help [CMD]`. */
function help(rest: readonly string[], out: Output): void {
  const [topic] = parseCommandArgs(rest, {}, ['COMMAND'], 1).positionals;
  out.text(topic === undefined ? generalUsage(commands) : commandUsage(resolveCommand(topic)));
}

/**
 * Runs one `agentctl` command line and answers the process exit code. Errors are printed to
 * `stderr` as one line, `agentctl: <message>`.
 */
export async function runAgentctl(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const plain = new Output(io.stdout, false);
  let connected: Connected | undefined;
  try {
    const { command: name, rest } = splitCommand(argv);
    if (name === undefined) {
      if (rest.includes('--help') || rest.includes('-h')) {
        plain.text(generalUsage(commands));
        return ExitCode.ok;
      }
      parseCommandArgs(rest, {}, []);
      throw new UsageError("missing command; run 'agentctl --help' for the list");
    }
    if (name === 'help') {
      help(rest, plain);
      return ExitCode.ok;
    }
    const command = resolveCommand(name);
    const args = parseCommandArgs(rest, command.options, command.positionals, command.optionalPositionals ?? 0);
    if (args.flag('help')) {
      plain.text(commandUsage(command));
      return ExitCode.ok;
    }
    const action = command.prepare(args, io.env);
    const output = { out: new Output(io.stdout, args.flag('json')), progress: io.stderr };
    if (typeof action !== 'function') return (await action.offline(output)) ?? ExitCode.ok;
    const config = resolveConfig(io.env, args);
    connected = await io.connect(config, io.env);
    return (await action({ agents: connected.agents, ...output, ...(io.terminal ? { terminal: io.terminal } : {}) })) ?? ExitCode.ok;
  } catch (err) {
    io.stderr(`agentctl: ${errorMessage(err)}`);
    return exitCodeFor(err);
  } finally {
    await connected?.close().catch(() => undefined);
  }
}
