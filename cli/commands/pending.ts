import { jsonObjectSchema } from '../../contracts';
import { AgentClientError } from '../../client/agent-client';
import { resolveTreePath, type RunPendingInputs } from '../../client/run-tree';
import type { Command } from '../command';
import { readOrRecorded } from '../../client/no-worker-reads';
import { queryTimeoutMs, showingRecordedBecause } from '../follow';
import { answerKindOf, buildAnswer, findOpenItem, type AnswerFlags } from '../hitl/answers';
import { renderPendingTree, renderRemaining } from '../hitl/render';
import { renderTree } from './tree';

/** `pending RUN`: calls waiting for confirmation and open await items, of the run and its sub-agent runs. */
export const pendingCommand: Command = {
  name: 'pending',
  summary: 'show what a run and its sub-agent runs wait on from humans: calls to approve, open await items',
  details:
    'A sub-agent run (an agent tool) that waits is listed under its path, the call ids from RUN down;\n' +
    'decide or answer it from RUN with --path PATH (--json: "tree" lists every run that waits, with its path).',
  positionals: ['RUN'],
  options: {},
  examples: ['pending run-watchlist-k3j9x2ab', 'pending run-watchlist-k3j9x2ab --json'],
  prepare(args) {
    const runId = args.positional(0);
    return async (ctx) => {
      await readOrRecorded(
        ctx.agents,
        runId,
        async () => {
          const pending: RunPendingInputs = await ctx.agents.pendingInputs(runId, { timeoutMs: queryTimeoutMs });
          ctx.out.emit(pending, () => renderPendingTree(runId, pending));
        },
        async (why) => {
          // What a run waits on lives in the run (a worker answers it); its history records its status.
          const recorded = await ctx.agents.treeFromHistory(runId);
          showingRecordedBecause(ctx, why);
          ctx.out.emit({ source: 'history', tree: recorded }, () => ['what each run waits on needs a worker to read; the runs as recorded:', ...renderTree(recorded)]);
        },
      );
    };
  },
};

/**
 * `answer RUN --item ID …`: answers one item of the open await. The item's kind comes from
 * the run (pendingInputs query); the flags must fit it.
 */
export const answerCommand: Command = {
  name: 'answer',
  summary: 'answer an open await item (--text, --choose, or --result / --error)',
  details:
    'The kind of the item comes from the run: a clarification takes --text (and --fields for its missing fields),\n' +
    'questions take --choose per question, external tools take --result or --error per call. The run checks the answer.',
  positionals: ['RUN'],
  options: {
    item: { type: 'string', value: 'ID', description: 'await item id (required; see pending)' },
    text: { type: 'string', value: 'TEXT', description: 'clarification: the answer' },
    fields: { type: 'string', value: 'JSON', description: 'clarification: values of its missing fields, e.g. {"city":"Paris"}' },
    choose: {
      type: 'string',
      multiple: true,
      value: 'QUESTION=OPT[,OPT...]',
      description: 'questions: option ids for a question (QUESTION= may be left out when there is one question)',
    },
    result: { type: 'string', multiple: true, value: 'CALLID=JSON', description: 'external tools: the result of a call (CALLID= may be left out for one call)' },
    error: { type: 'string', multiple: true, value: 'CALLID=MESSAGE', description: 'external tools: the call failed with MESSAGE' },
    path: { type: 'string', value: 'CALL[/CALL...]', description: 'the sub-agent run that owns the item, by call ids from RUN down (see pending)' },
  },
  examples: [
    'answer run-1 --item city --text Paris --fields \'{"city":"Paris"}\'',
    'answer run-1 --item prefs --choose color=blue --choose sizes=s,m',
    'answer run-1 --item quotes --result \'ext_1={"symbol":"AAPL","price":1,"currency":"USD"}\'',
  ],
  prepare(args) {
    const runId = args.positional(0);
    const itemId = args.requiredString('item');
    const text = args.string('text');
    const fields = args.json('fields', jsonObjectSchema);
    const flags: AnswerFlags = {
      ...(text !== undefined ? { text } : {}),
      ...(fields !== undefined ? { fields } : {}),
      choose: args.strings('choose'),
      results: args.strings('result'),
      errors: args.strings('error'),
    };
    answerKindOf(flags);
    const path = args.string('path')?.split('/').filter((p) => p.length > 0) ?? [];
    return async (ctx) => {
      const target = path.length ? await resolveTreePath(ctx.agents, runId, path) : runId;
      const inputs = await ctx.agents.pendingInputs(target, { subAgents: path.length === 0 });
      const below = inputs.tree.filter((p) => p.path.length > 0 && p.await?.items.some((i) => i.id === itemId && !i.answered));
      const open = inputs.await?.items.some((i) => i.id === itemId && !i.answered);
      if (!open && below.length > 0) {
        const where = below.map((p) => `at path ${p.path.join('/')} (${p.workflowId}): answer it there (--path ${p.path.join('/')})`).join('; or ');
        throw new AgentClientError('rejected', `no open await item "${itemId}" on ${runId}; it waits in the sub-agent run ${where}`);
      }
      const { item } = findOpenItem(inputs, itemId);
      const pending = await ctx.agents.answer(target, buildAnswer(item, flags));
      ctx.out.emit(pending, () => [`answered ${itemId} on ${target}`, renderRemaining(pending)]);
    };
  },
};
