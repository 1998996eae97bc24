import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { jsonObjectSchema, jsonValueSchema, runInputSchema, runPolicySchema, type RunInput } from '../../contracts';
import { parseJsonValue, validate } from '../args';
import { NoWorkerError } from '../../client/agent-client';
import { refusedStartMessage, type StartOptions } from '../../client/start-needs-worker';
import type { Command, CommandContext } from '../command';
import { UsageError } from '../exit-codes';
import { followEvents } from '../follow';
import { renderResult } from '../render';
import { tenantOf, tenantOption } from '../tenant-option';

/** A script file: `{ steps: [...] }` (scripted planner options) or just the array of steps. */
const scriptFileSchema = z.union([z.array(jsonValueSchema).transform((steps) => ({ steps })), z.record(z.string(), jsonValueSchema)]);

/**
 * Planner options from a script file (`--script FILE`).
 *
 * @throws UsageError when the file cannot be read or is not a script.
 */
export function readScript(path: string): z.output<typeof scriptFileSchema> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--script: cannot read ${path} (${err instanceof Error ? err.message : String(err)})`);
  }
  return parseJsonValue(`--script ${path}`, text, scriptFileSchema);
}

/** Starts a run; a refusal for want of a worker names the flag that starts it anyway. */
async function startRun(ctx: CommandContext, input: RunInput, options: StartOptions): Promise<{ workflowId: string; runId: string }> {
  try {
    return await ctx.agents.start(input, options);
  } catch (err) {
    if (!(err instanceof NoWorkerError)) throw err;
    throw new NoWorkerError(err.presence, err.reason, refusedStartMessage(err.presence, { taskQueue: '--task-queue or TEMPORAL_TASK_QUEUE', startAnyway: '--allow-no-worker' }));
  }
}

/** `start`: starts a run; prints its id, and with `--follow` its events and result. */
export const startCommand: Command = {
  name: 'start',
  summary: 'start a run and print its id',
  positionals: [],
  options: {
    agent: { type: 'string', value: 'NAME', description: 'registered agent name (required)' },
    message: { type: 'string', multiple: true, value: 'TEXT', description: 'a user message (repeatable; at least one)' },
    'session-state': { type: 'string', value: 'JSON', description: 'initial session state (a JSON object)' },
    tenant: { ...tenantOption, description: 'whose run it is: listed and filtered by it (AgentTenant); its sub-agent runs take it' },
    policy: { type: 'string', value: 'JSON', description: 'policy overrides, e.g. {"maxToolCalls":10}' },
    'planner-options': { type: 'string', value: 'JSON', description: 'agent-specific planner options' },
    script: { type: 'string', value: 'FILE', description: 'planner options from a JSON file (scripted agent: {"steps":[...]} or [...])' },
    id: { type: 'string', value: 'ID', description: 'workflow id (default: run-<agent>-<random>); the id of a closed run is refused unless --reuse-closed-id' },
    'reuse-closed-id': { type: 'boolean', description: 'start even if a closed run has the --id; the new run then answers for it (the old one: result --run-id)' },
    follow: { type: 'boolean', description: 'print events until the run ends, then its result' },
    'allow-no-worker': { type: 'boolean', description: 'start even when no worker has polled the task queue in the last 5 minutes (the run waits for one)' },
    'confirm-ms': {
      type: 'string',
      value: 'MS',
      description: 'wait this long for a worker to start the run, failing with its reason if it cannot start (default 10000; 0: do not wait)',
    },
  },
  examples: ['start --agent watchlist --message "Add AAPL to my watchlist" --follow'],
  prepare(args) {
    if (args.string('planner-options') !== undefined && args.string('script') !== undefined) {
      throw new UsageError('give --planner-options or --script, not both');
    }
    const messages = args.strings('message').map((content) => ({ role: 'user' as const, content }));
    if (messages.length === 0) throw new UsageError('missing --message (give at least one)');
    const script = args.string('script');
    const plannerOptions = script !== undefined ? readScript(script) : args.json('planner-options', jsonValueSchema);
    const sessionState = args.json('session-state', jsonObjectSchema);
    const policy = args.json('policy', runPolicySchema.unwrap().partial().strict());
    const tenant = tenantOf(args);
    const input: RunInput = {
      agent: args.requiredString('agent'),
      messages,
      ...(tenant !== undefined ? { tenant } : {}),
      ...(sessionState !== undefined ? { sessionState } : {}),
      ...(policy !== undefined ? { policy } : {}),
      ...(plannerOptions !== undefined ? { plannerOptions } : {}),
    };
    validate(runInputSchema, input, { agent: '--agent', messages: '--message' });
    const workflowId = args.string('id');
    const reuseClosedId = args.flag('reuse-closed-id');
    if (reuseClosedId && workflowId === undefined) throw new UsageError('--reuse-closed-id needs --id');
    const follow = args.flag('follow');
    const confirmMs = args.int('confirm-ms', 0) ?? 10_000;
    const allowNoWorker = args.flag('allow-no-worker');
    return async (ctx) => {
      const started = await startRun(ctx, input, { ...(workflowId !== undefined ? { workflowId } : {}), ...(reuseClosedId ? { reuseClosedId } : {}), ...(allowNoWorker ? { allowNoWorker } : {}) });
      // An agent the worker does not have, or options it refuses, fail the run's first task:
      // say so (non-zero exit) instead of printing an id as if all were well.
      const state = confirmMs > 0 ? await ctx.agents.confirmStarted(started.workflowId, confirmMs) : undefined;
      if (state === 'not_picked_up') {
        ctx.progress?.(`agentctl: no worker has started run ${started.workflowId} within ${confirmMs} ms; it stays queued on task queue ${ctx.agents.taskQueue}`);
      }
      ctx.out.emit(started, () => started.workflowId);
      if (!follow) return;
      await followEvents(ctx, started.workflowId);
      const result = await ctx.agents.result(started.workflowId);
      ctx.out.emit({ result }, () => renderResult(result));
    };
  },
};
