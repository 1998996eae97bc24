import { z } from 'zod';
import { awaitAnswerSchema, callDecisionSchema, pendingInputsSchema } from '../../contracts';
import { answerInTree, decideInTree, flattenTree, pendingInputsTree, runTree } from '../../client/run-tree';
import type { ServerContext } from '../context';
import { route, type AnyRoute } from '../routes';

const treeRunSchema = z.object({
  workflowId: z.string(),
  agent: z.string(),
  status: z.string(),
  path: z.array(z.string()),
  toolCallId: z.string().optional(),
});

const treeResponseSchema = z.object({
  runs: z.array(treeRunSchema),
  pending: z.array(pendingInputsSchema.unwrap().extend({ workflowId: z.string(), path: z.array(z.string()) })),
});

/** What a run waits on from humans, and their answers: approvals (decisions) and await items. */
export function runInputRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  const tags = ['human inputs'];
  return [
    route({
      method: 'get',
      path: '/api/runs/:id/pending',
      access: 'viewer',
      summary: 'Calls waiting for confirmation and the open await barrier',
      tags,
      response: pendingInputsSchema,
      handle: ({ params }) => agents.pendingInputs(params.id ?? ''),
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/decisions',
      access: 'operator',
      summary: 'Approve, reject, edit or replace a call waiting for confirmation',
      description: "`by` defaults to the token holder's name. Answers what still waits.",
      tags,
      body: callDecisionSchema,
      response: pendingInputsSchema,
      handle: ({ params, body, principal }) => agents.decide(params.id ?? '', { ...body, by: body.by ?? principal.name }),
    }),
    route({
      method: 'get',
      path: '/api/runs/:id/tree',
      access: 'viewer',
      summary: 'The run and its sub-agent runs (agent tools), and what each of them waits on from humans',
      description: 'Runs are listed root first; `path` is the call ids from this run down. Answer a sub-agent through the tree routes with that path.',
      tags,
      response: treeResponseSchema,
      handle: async ({ params }) => {
        const id = params.id ?? '';
        // One tree for both: a parent learns of a child's start a little after the child runs.
        const tree = await runTree(agents, id);
        return { runs: flattenTree(tree), pending: await pendingInputsTree(agents, id, tree) };
      },
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/tree/decisions',
      access: 'operator',
      summary: 'Decide a call of a sub-agent run: routed to the run at `path` under this one',
      tags,
      body: z.object({ path: z.array(z.string().min(1)).min(1), decision: callDecisionSchema }),
      response: pendingInputsSchema,
      handle: ({ params, body, principal }) => decideInTree(agents, params.id ?? '', body.path, { ...body.decision, by: body.decision.by ?? principal.name }),
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/tree/answers',
      access: 'operator',
      summary: 'Answer an await item of a sub-agent run: routed to the run at `path` under this one',
      tags,
      body: z.object({ path: z.array(z.string().min(1)).min(1), answer: awaitAnswerSchema }),
      response: pendingInputsSchema,
      handle: ({ params, body }) => answerInTree(agents, params.id ?? '', body.path, body.answer),
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/answers',
      access: 'operator',
      summary: 'Answer one item of the open await (clarification, questions, external tool results)',
      description: 'The run checks the answer against the item; answers what still waits.',
      tags,
      body: awaitAnswerSchema,
      response: pendingInputsSchema,
      handle: ({ params, body }) => agents.answer(params.id ?? '', body),
    }),
  ];
}
