import { formatEvent } from '../../client/format';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';
import { EndOfInput, LineReader, linePrompter } from '../interactive/prompter';
import { InteractiveSession } from '../interactive/session';
import { renderResult } from '../render';

/**
 * `interactive RUN` (alias `attach`): follows a run and prompts for its approvals and await
 * items on the terminal; end of input detaches and leaves the run as it is.
 */
export const interactiveCommand: Command = {
  name: 'interactive',
  aliases: ['attach'],
  summary: 'follow a run and answer its approvals and await items at prompts (Ctrl-D detaches)',
  details:
    'Prints the events, and whenever a call waits for confirmation or an await opens, asks on stdin (a pipe works too):\n' +
    'approvals [a]pprove / [A]lways / [r]eject / [e]dit; questions by number or option id; clarifications and each\n' +
    'missing field; a JSON result (or !MESSAGE) per external call. A refusal by the run is shown and asked again.\n' +
    'Ends with the result when the run ends; end of input detaches and leaves the run as it is.',
  positionals: ['RUN'],
  options: {
    after: { type: 'string', value: 'SEQ', description: 'print only events with seq > SEQ (default 0: the whole log)' },
    by: { type: 'string', value: 'NAME', description: 'who decides (recorded with each decision)' },
  },
  examples: ['interactive run-watchlist-k3j9x2ab --by alice', "printf 'a\\n' | agentctl attach run-watchlist-k3j9x2ab"],
  prepare(args) {
    if (args.flag('json')) throw new UsageError('interactive has no --json mode; use events --follow --json with pending, approve and answer');
    const runId = args.positional(0);
    const afterSeq = args.int('after', 0) ?? 0;
    const by = args.string('by');
    return async (ctx) => {
      const terminal = ctx.terminal;
      if (!terminal) throw new UsageError('interactive needs a stdin to read answers from');
      const say = (line: string): void => ctx.out.text(line);
      const reader = new LineReader(terminal.input);
      const prompter = linePrompter(reader, (text) => terminal.prompt(text), say, !terminal.isTTY);
      const session = new InteractiveSession(ctx.agents, runId, prompter, (e) => say(formatEvent(e)), { afterSeq, ...(by !== undefined ? { by } : {}) });
      try {
        await session.run(terminal.isTTY ? reader.ended : undefined);
      } catch (err) {
        if (!(err instanceof EndOfInput)) throw err;
        say(`detached from ${runId} at event #${session.lastSeq}; the run goes on.`);
        say(`re-attach: agentctl interactive ${runId} --after ${session.lastSeq}`);
        return;
      } finally {
        reader.close();
      }
      const result = await ctx.agents.result(runId);
      renderResult(result).forEach(say);
    };
  },
};
