import type { Command } from '../command';
import { budgetCommand } from './budget';
import { approveCommand, editCommand, rejectCommand, replaceCommand } from './decisions';
import { evalCommand } from './eval';
import { historyCommand, replayCommand } from './history';
import { eventsCommand, resultCommand, statusCommand } from './inspect';
import {
  blockCommand,
  breakpointCommand,
  dropCallCommand,
  editCallCommand,
  injectCommand,
  systemPromptCommand,
  refreshToolsCommand,
  unblockCommand,
} from './interventions';
import { interactiveCommand } from './interactive';
import { killCommand, pauseCommand, resumeCommand } from './lifecycle';
import { listCommand } from './list';
import { answerCommand, pendingCommand } from './pending';
import { checkpointsCommand, forkCommand, rewindCommand } from './rewind';
import { sessionCommand } from './session';
import { startCommand } from './start';
import { tenantCommand } from './tenant';
import { treeCommand } from './tree';

/** Every command, in the order help lists them. */
export const commands: readonly Command[] = [
  startCommand,
  listCommand,
  sessionCommand,
  statusCommand,
  treeCommand,
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
  refreshToolsCommand,
  breakpointCommand,
  budgetCommand,
  pendingCommand,
  approveCommand,
  rejectCommand,
  editCommand,
  replaceCommand,
  answerCommand,
  interactiveCommand,
  checkpointsCommand,
  rewindCommand,
  forkCommand,
  historyCommand,
  replayCommand,
  evalCommand,
  tenantCommand,
];

/** The command called `name`, if any. */
export function findCommand(name: string): Command | undefined {
  return commands.find((c) => c.name === name || c.aliases?.includes(name));
}
