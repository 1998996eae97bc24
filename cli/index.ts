export { runAgentctl, connectAgents, type CliIo, type Connected } from './cli';
export { commands, findCommand } from './commands';
export { ExitCode, UsageError, exitCodeFor, errorMessage } from './exit-codes';
export { listQuery, queryLiteral } from '../client/list-query';
export type { Command, CommandContext, OutputContext, Action, OfflineAction } from './command';
