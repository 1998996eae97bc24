import { awaitAnswerSchema, callDecisionSchema, pendingInputsSchema } from '../../contracts';
import type { ServerContext } from '../context';
import { route, type AnyRoute } from '../routes';

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
