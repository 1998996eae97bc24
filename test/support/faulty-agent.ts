/**
 * An agent with bugs in its own code: a hook and a confirmation rule that throw on some input.
 * Such a bug must fail the run with a clear error, never retry the workflow task forever.
 */
import { sleep } from '@temporalio/workflow';
import { createScriptedPlanner, defineAgent, defineTool } from 'durable-agents/workflow';
import { z } from 'zod';
import { scriptedAgent } from '../../examples/toolbox/agent';

/** `shout`: its confirmation rule throws for the text "boom". */
export const shoutTool = defineTool({
  name: 'shout',
  description: 'Return the text in capitals.',
  input: z.object({ text: z.string() }),
  requiresConfirmation: (args) => {
    if ((args as { text?: unknown }).text === 'boom') throw new Error('confirmation rule bug');
    return false;
  },
});

/**
 * `linger`: runs until it is cancelled, never heartbeating itself, then takes `stopMs` to stop
 * (a tool cleaning up after itself). The run must wait for it before answering the call.
 */
export const lingerTool = defineTool({
  name: 'linger',
  description: 'Run until cancelled, then take a while to stop.',
  input: z.object({ stopMs: z.number().int().nonnegative() }),
  timeoutMs: 600_000,
});

/** `quick`: a short tool run as a local activity (in the workflow worker, no task-queue round trip). */
export const quickTool = defineTool({
  name: 'quick',
  description: 'Return the text reversed, at once.',
  input: z.object({ text: z.string() }),
  local: true,
});

/**
 * `garble`: answers with text that is not well-formed Unicode (lone UTF-16 surrogates), as a
 * tool passing on an upstream service's bytes might: in a thrown error, a ToolFailure with
 * details, or its result.
 */
export const garbleTool = defineTool({
  name: 'garble',
  description: 'Fail or answer with text that holds lone surrogates.',
  input: z.object({ mode: z.enum(['throw', 'tool_failure', 'result']) }),
  timeoutMs: 10_000,
  retry: { maximumAttempts: 2, initialIntervalMs: 100 },
});

export const faultyAgent = defineAgent({
  ...scriptedAgent,
  name: 'faulty',
  description: 'The scripted agent with a before_tool hook that throws for the text "explode".',
  tools: [...scriptedAgent.tools, shoutTool, lingerTool, quickTool, garbleTool],
  hooks: {
    before_tool: ({ call }) => {
      if ((call.args as { text?: unknown }).text === 'explode') throw new Error('hook bug');
      return undefined;
    },
  },
});

/**
 * `hasty`: its planner declares itself synchronous, yet waits on a timer before every answer.
 * The run still reaches its final answer: the flag only makes the planner's turn cheaper, and a
 * planner that breaks its word loses only being cancelled while it waits.
 */
export const hastyAgent = defineAgent({
  ...scriptedAgent,
  name: 'hasty',
  description: 'The scripted agent behind a planner that says it is synchronous but sleeps first.',
  createPlanner: (options) => {
    const script = createScriptedPlanner(options);
    return {
      synchronous: true,
      planStart: async (input, ctx) => {
        await sleep(50);
        return script.planStart(input, ctx);
      },
      planResume: async (input, ctx) => {
        await sleep(50);
        return script.planResume(input, ctx);
      },
    };
  },
});
