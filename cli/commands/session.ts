import { jsonObjectSchema, jsonValueSchema, runPolicySchema, type SessionReport } from '../../contracts';
import type { QueueEdit, SessionEvent, SessionQueueView } from '../../contracts/session';
import { AgentClient } from '../../client/agent-client';
import { openSessionFor } from '../../client/session-open';
import type { ParsedArgs } from '../args';
import type { Action, Command } from '../command';
import { UsageError } from '../exit-codes';
import { tenantOf, tenantOption } from '../tenant-option';
import { followEvents } from '../follow';
import { listSessions, type SessionListEntry } from '../../client/run-list';
import { renderResult } from '../render';
import { readScript } from './start';
import { isScheduleSubcommand, prepareScheduleCommand, scheduleOptions, scheduleOptionsOf, scheduleSubcommands, whenBusyOf } from './session-schedule';

const subcommands = ['open', 'send', 'state', 'events', 'list', 'close', 'queue', ...scheduleSubcommands] as const;
type Subcommand = (typeof subcommands)[number];

function isSubcommand(name: string): name is Subcommand {
  return (subcommands as readonly string[]).includes(name);
}

/** Options each subcommand takes; any other command option is a usage error. */
const optionsOf: Record<Subcommand, readonly string[]> = {
  open: ['agent', 'tenant', 'session-state', 'policy', 'when-busy'],
  send: ['message', 'message-id', 'when-busy', 'agent', 'tenant', 'planner-options', 'script', 'follow'],
  state: [],
  events: ['after'],
  list: ['limit', 'tenant'],
  close: [],
  queue: ['message-id', 'message', 'drop', 'reason', 'front'],
  ...scheduleOptionsOf,
};

/** `3 runs, 1234 tokens, cost 0.0123 USD (+ 2 calls of unknown cost)`. */
function sessionUsageText(u: NonNullable<SessionReport['usage']>): string {
  const money = `${Math.round(u.cost * 10_000) / 10_000}${u.currency ? ` ${u.currency}` : ''}`;
  return `${u.runs} run${u.runs === 1 ? '' : 's'}, ${u.tokens} tokens, cost ${money}${u.costUnknownCalls ? ` (+ ${u.costUnknownCalls} call(s) of unknown cost)` : ''}`;
}

function renderSession(sessionId: string, s: SessionReport): string[] {
  const rows: [string, string][] = [
    ['session', sessionId],
    ['agent', s.agent],
    ...(s.tenant !== undefined ? ([['tenant', s.tenant]] as [string, string][]) : []),
    ['open', s.open ? 'yes' : 'no'],
    ['history', `${s.historyLength} messages`],
    ['state', JSON.stringify(s.sessionState)],
    ...(s.usage ? ([['used', sessionUsageText(s.usage)]] as [string, string][]) : []),
  ];
  const runs = s.runs.map((r) => `  #${r.runNumber} ${r.workflowId} ${r.status}${r.final !== undefined ? `: ${r.final}` : ''}${r.error !== undefined ? `: ${r.error}` : ''}`);
  return [...rows.map(([k, v]) => `${k.padEnd(12)}${v}`), `runs${runs.length ? '' : '        none'}`, ...runs, ...renderQueue(s.queue ?? [])];
}

/** One session event as a line: `#12 11:02:03 message m-3 taken: next (whenBusy interrupt), run #3`. */
function renderSessionEvent(e: SessionEvent): string {
  const head = `#${e.seq} ${e.at.slice(11, 19)}`;
  switch (e.type) {
    case 'message_taken':
      return `${head} message ${e.messageId} taken: ${e.delivery} (whenBusy ${e.whenBusy}), run #${e.runNumber}`;
    case 'message_repeated':
      return `${head} message ${e.messageId} repeated: answered with run #${e.runNumber}`;
    case 'run_ending':
      return `${head} run #${e.runNumber} ending: ${e.by} by message ${e.messageId}`;
    case 'run_started':
      return `${head} run #${e.runNumber} started (${e.workflowId})`;
    case 'run_ended':
      return `${head} run #${e.runNumber} ended: ${e.status}${e.endedBy ? ` (${e.endedBy})` : ''}`;
    case 'steer_delivered':
      return `${head} message ${e.messageId} seen by run #${e.runNumber}`;
    case 'steer_requeued':
      return `${head} message ${e.messageId} not seen by run #${e.fromRun}: runs as run #${e.runNumber}`;
    case 'queue_edited':
      return `${head} queue: ${e.action} ${e.messageId}${e.reason ? ` (${e.reason})` : ''}`;
  }
}

/** The messages that wait for their runs, next first. */
function renderQueue(queue: SessionQueueView): string[] {
  return [`queue${queue.length ? '' : '       empty'}`, ...queue.map((m) => `  ${m.messageId ?? '-'} (run #${m.runNumber}): ${m.content}`)];
}

/** The queue edit `session queue` asks for: --drop, --front, or --message (new text); none: show the queue. */
function queueEditOf(args: ParsedArgs): QueueEdit | undefined {
  const messageId = args.string('message-id');
  const content = args.string('message');
  const drop = args.flag('drop');
  const front = args.flag('front');
  const chosen = [drop, front, content !== undefined].filter(Boolean).length;
  if (chosen === 0 && messageId === undefined) return undefined;
  if (messageId === undefined) throw new UsageError('--message-id: name the queued message to change');
  if (chosen !== 1) throw new UsageError('give one of --message TEXT (edit), --drop or --front');
  if (drop) return { action: 'drop', messageId, ...(args.string('reason') !== undefined ? { reason: args.string('reason') } : {}) };
  if (front) return { action: 'front', messageId };
  return { action: 'edit', messageId, content };
}

function renderList(entries: readonly SessionListEntry[]): string[] {
  if (entries.length === 0) return ['no sessions'];
  const tenants = entries.some((e) => e.tenant !== undefined);
  const rows = entries.map((e) => [e.sessionId, e.agent ?? '-', ...(tenants ? [e.tenant ?? '-'] : []), e.workflowStatus === 'RUNNING' ? 'open' : e.workflowStatus.toLowerCase(), e.startTime]);
  const header = ['SESSION', 'AGENT', ...(tenants ? ['TENANT'] : []), 'STATUS', 'STARTED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((r) => r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell)).join('  '));
}

function sessionIdOf(args: ParsedArgs, sub: Subcommand): string {
  const sessionId = args.positionals[1];
  if (sessionId === undefined) throw new UsageError(`missing SESSION; use 'session ${sub} SESSION'`);
  if (sessionId.trim() === '') throw new UsageError('SESSION must not be empty');
  return sessionId;
}

function prepareSession(args: ParsedArgs, sub: Subcommand): Action {
  if (sub === 'list') {
    if (args.positionals.length > 1) throw new UsageError(`unexpected argument '${args.positionals[1]}'`);
    const limit = args.int('limit') ?? 50;
    const tenant = tenantOf(args);
    return async (ctx) => {
      const { entries } = await listSessions(ctx.agents, { limit }, tenant !== undefined ? { tenant } : {});
      ctx.out.emit(entries, () => renderList(entries));
    };
  }
  const sessionId = sessionIdOf(args, sub);
  if (isScheduleSubcommand(sub)) return prepareScheduleCommand(args, sub, sessionId);
  switch (sub) {
    case 'open': {
      const agent = args.requiredString('agent');
      const sessionState = args.json('session-state', jsonObjectSchema);
      const policy = args.json('policy', runPolicySchema.unwrap().partial().strict());
      const whenBusy = whenBusyOf(args);
      const tenant = tenantOf(args);
      return async (ctx) => {
        // Opening an open session is a no-op; it fails when that session has another agent.
        const workflowId = await openSessionFor(ctx.agents, sessionId, { agent, ...(tenant !== undefined ? { tenant } : {}), ...(sessionState ? { sessionState } : {}), ...(policy ? { policy } : {}), ...(whenBusy ? { whenBusy } : {}) });
        ctx.out.emit({ sessionId, workflowId }, () => `session ${sessionId} open (${workflowId})`);
      };
    }
    case 'send': {
      const content = args.requiredString('message');
      if (args.string('planner-options') !== undefined && args.string('script') !== undefined) {
        throw new UsageError('give --planner-options or --script, not both');
      }
      const script = args.string('script');
      const plannerOptions = script !== undefined ? readScript(script) : args.json('planner-options', jsonValueSchema);
      const follow = args.flag('follow');
      const messageId = args.string('message-id');
      const whenBusy = whenBusyOf(args);
      const agent = args.string('agent');
      const tenant = tenantOf(args);
      if (tenant !== undefined && agent === undefined) throw new UsageError('--tenant needs --agent (it is the tenant of a session this send opens)');
      return async (ctx) => {
        const message = { content, ...(plannerOptions !== undefined ? { plannerOptions } : {}), ...(messageId !== undefined ? { messageId } : {}), ...(whenBusy ? { whenBusy } : {}) };
        // With --agent, a session that is not open is opened in the same call.
        const record = await ctx.agents.sendMessage(sessionId, message, agent !== undefined ? { open: { agent, ...(tenant !== undefined ? { tenant } : {}) } } : {});
        const how = record.delivery === 'steered' ? ', steered into it' : record.delivery === 'next' ? ', runs next' : '';
        ctx.out.emit(record, () => `run #${record.runNumber} of session ${sessionId}: ${record.workflowId} (${record.status}${how})`);
        if (!follow) return;
        await followEvents(ctx, record.workflowId);
        const result = await ctx.agents.result(record.workflowId);
        ctx.out.emit({ result }, () => renderResult(result));
      };
    }
    case 'state':
      return async (ctx) => {
        const report = await ctx.agents.session(sessionId).status();
        ctx.out.emit(report, () => renderSession(sessionId, report));
      };
    case 'events': {
      const after = args.int('after') ?? 0;
      return async (ctx) => {
        const { events } = await ctx.agents.session(sessionId).events(after);
        ctx.out.emit(events, () => (events.length ? events.map(renderSessionEvent) : ['no events']));
      };
    }
    case 'queue': {
      const edit = queueEditOf(args);
      return async (ctx) => {
        const session = ctx.agents.session(sessionId);
        const queue = edit ? await session.editQueue(edit) : ((await session.status()).queue ?? []);
        ctx.out.emit(queue, () => renderQueue(queue));
      };
    }
    case 'close':
      return async (ctx) => {
        await ctx.agents.closeSession(sessionId);
        ctx.out.emit({ sessionId, closing: true }, () => `session ${sessionId} closes after its queued runs`);
      };
  }
}

/** `session open|send|state|list|close|schedule…`: conversations of many runs (the agentSession workflow) and their schedules. */
export const sessionCommand: Command = {
  name: 'session',
  summary: 'session open|send|state|events|queue|list|close|schedule…: a conversation whose runs share state and history, its queue, and messages on a schedule',
  details:
    `A session is one long-lived workflow (${AgentClient.sessionWorkflowId('ID')}); each 'send' queues the next user\n` +
    'message as a run that starts from the state and history the earlier runs left. Runs of a\n' +
    "session are sequential: 'send' answers the run's id at once, '--follow' prints it once it starts.\n" +
    "'schedule' posts a message into the session on a cron, an interval or once (a Temporal Schedule,\n" +
    "id session-ID/schedule-NAME); 'schedules', 'schedule-show', 'schedule-pause', 'schedule-unpause',\n" +
    "'schedule-trigger' and 'schedule-delete' list and drive them.",
  positionals: ['SUBCOMMAND', 'SESSION'],
  optionalPositionals: 2,
  options: {
    agent: { type: 'string', value: 'NAME', description: 'open: the agent of every run of the session (required); send: open the session with it when it is not open (a session of another agent refuses the message)' },
    'session-state': { type: 'string', value: 'JSON', description: 'open: initial session state (a JSON object)' },
    policy: { type: 'string', value: 'JSON', description: 'open: policy overrides of every run, e.g. {"maxToolCalls":10}' },
    message: { type: 'string', value: 'TEXT', description: 'send, schedule: the user message (required; one per send or firing); queue: the new text of the queued message' },
    'message-id': { type: 'string', value: 'ID', description: 'send: the message id; a send again with the same id answers the first run and queues nothing; queue: the queued message to change' },
    drop: { type: 'boolean', description: 'queue: take the message (--message-id) off the queue' },
    reason: { type: 'string', value: 'TEXT', description: 'queue: why, with --drop' },
    front: { type: 'boolean', description: 'queue: move the message (--message-id) to the front: it runs next' },
    after: { type: 'string', value: 'SEQ', description: 'events: only the events after this seq' },
    'planner-options': { type: 'string', value: 'JSON', description: "send: planner options of this message's run" },
    script: { type: 'string', value: 'FILE', description: 'send: planner options from a JSON file (scripted agent)' },
    follow: { type: 'boolean', description: "send: print the run's events once it starts, then its result" },
    limit: { type: 'string', value: 'N', description: 'list: at most N sessions (default 50)' },
    tenant: { ...tenantOption, description: "open (and send with --agent): whose session it is, taken by its runs; list: only this tenant's sessions" },
    ...scheduleOptions,
  },
  examples: [
    'session open shop-42 --agent watchlist',
    'session send shop-42 --message "Add AAPL" --follow',
    'session send shop-42 --message "Add MSFT" --message-id order-7',
    'session send shop-42 --message "No, MSFT" --when-busy steer',
    'session queue shop-42 ; session queue shop-42 --message-id order-7 --front',
    'session send thread-9 --agent watchlist --message "Add AAPL"',
    'session state shop-42 --json',
    'session list',
    'session close shop-42',
    'session schedule shop-42 --name morning --cron "0 9 * * *" --timezone Europe/Berlin --message "Summarise my watchlist"',
    'session schedule-trigger shop-42 --name morning',
  ],
  prepare(args) {
    const sub = args.positionals[0];
    if (sub === undefined) throw new UsageError(`missing subcommand; use one of ${subcommands.join(', ')}`);
    if (!isSubcommand(sub)) throw new UsageError(`unknown session subcommand '${sub}'; use one of ${subcommands.join(', ')}`);
    const subcommand = sub;
    for (const name of Object.keys(sessionCommand.options)) {
      const given = args.string(name) !== undefined || args.flag(name);
      if (given && !optionsOf[subcommand].includes(name)) throw new UsageError(`--${name} is not an option of 'session ${subcommand}'`);
    }
    return prepareSession(args, subcommand);
  },
};
