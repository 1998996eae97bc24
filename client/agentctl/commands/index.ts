import type { Command } from '../command';
import { budgetCommand } from './budget';
import { eventsCommand, resultCommand, statusCommand } from './inspect';
import {
  blockCommand,
  breakpointCommand,
  dropCallCommand,
  editCallCommand,
  injectCommand,
  systemPromptCommand,
  unblockCommand,
} from './interventions';
import { killCommand, pauseCommand, resumeCommand } from './lifecycle';
import { listCommand } from './list';
import { startCommand } from './start';

/** Every command, in the order help lists them. */
export const commands: readonly Command[] = [
  startCommand,
  listCommand,
  statusCommand,
  resultCommand,
  eventsCommand,
  pauseCommand,
  resumeCommand,
  killCommand,
  injectCommand,
  systemPromptCommand,
  editCallCommand,
  dropCallCommand,
  blockCommand,
  unblockCommand,
  breakpointCommand,
  budgetCommand,
];

/** The command called `name`, if any. */
export function findCommand(name: string): Command | undefined {
  return commands.find((c) => c.name === name);
}
