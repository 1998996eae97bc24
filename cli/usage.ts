import { globalOptions, type OptionSpecs } from './args';
import type { Command } from './command';

function optionLines(options: OptionSpecs): string[] {
  const heads = Object.entries(options).map(([name, spec]) => {
    const short = spec.short ? `-${spec.short}, ` : '';
    return [`${short}--${name}${spec.value ? ` ${spec.value}` : ''}`, `${spec.description}${spec.multiple ? ' [repeatable]' : ''}`] as const;
  });
  const width = Math.max(0, ...heads.map(([head]) => head.length));
  return heads.map(([head, description]) => `  ${head.padEnd(width)}  ${description}`);
}

const exitCodes =
  'exit codes: 0 ok, 1 other error, 2 usage or invalid input, 3 run not found, 4 run has ended, 5 rejected by the run,\n' +
  '            6 nondeterministic (replay: the history does not match the current workflow code),\n' +
  '            7 outside the support window (replay, eval), 8 a gate failed (eval)';

/** `agentctl --help`: the command list, global options and exit codes. */
export function generalUsage(commands: readonly Command[]): string {
  const names = commands.map((c) => [c.name, ...(c.aliases ?? [])].join(', '));
  const width = Math.max(...names.map((n) => n.length));
  return [
    'usage: agentctl <command> [options]',
    '',
    'Operate agent runs (Temporal workflows of type agentRun). RUN is a workflow id.',
    '',
    'commands:',
    ...commands.map((c, i) => `  ${(names[i] ?? c.name).padEnd(width)}  ${c.summary}`),
    '',
    'global options (any command):',
    ...optionLines(globalOptions),
    '',
    'The connection comes from TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE,',
    'TEMPORAL_API_KEY and TEMPORAL_TLS*; the flags above override them.',
    exitCodes,
    "Run 'agentctl help <command>' for a command's options.",
    '',
  ].join('\n');
}

/** `agentctl help CMD`: synopsis, options and examples of one command. */
export function commandUsage(command: Command): string {
  const positionals = command.positionals.map((p) => ` ${p}`).join('');
  const lines = [`usage: agentctl ${command.name}${positionals} [options]`, '', command.summary, ''];
  if (command.aliases?.length) lines.splice(3, 0, `alias: ${command.aliases.join(', ')}`);
  if (command.details) lines.push(command.details, '');
  if (Object.keys(command.options).length > 0) lines.push('options:', ...optionLines(command.options), '');
  lines.push('global options:', ...optionLines(globalOptions), '');
  if (command.examples.length > 0) lines.push('examples:', ...command.examples.map((e) => `  agentctl ${e}`), '');
  lines.push(exitCodes, '');
  return lines.join('\n');
}
