import type { TemporalConfig } from '../config/temporal';

/** The variables a project of 0.13 and before set for `AgentClient.connect()`, which read them then. */
const connectionVariables = ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE'] as const;

/** Code of the warning, for `process.on('warning')` listeners and `--disable-warning`. */
export const unreadEnvWarningCode = 'DURABLE_AGENTS_ENV_NOT_READ';

let warned = false;

/**
 * The warning for a client connected without a config while the environment names another
 * server or task queue, or undefined when it names none: `connect()` reads no variable, so the
 * client would go to the local defaults while the variables point elsewhere.
 */
export function unreadEnvWarning(env: NodeJS.ProcessEnv, used: TemporalConfig): string | undefined {
  const set = connectionVariables.filter((name) => (env[name] ?? '').trim() !== '');
  if (set.length === 0) return undefined;
  return (
    `${set.map((name) => `${name}=${env[name]?.trim()}`).join(', ')} ${set.length === 1 ? 'is' : 'are'} set, but AgentClient.connect() without a config ` +
    `reads no environment variable: this client goes to ${used.address}, namespace ${used.namespace}, task queue ${used.taskQueue}. ` +
    'Use AgentClient.fromEnv() to connect as the TEMPORAL_* variables say, or pass a config'
  );
}

/** Emits {@link unreadEnvWarning} as a process warning, once per process. */
export function warnUnreadEnvOnce(env: NodeJS.ProcessEnv, used: TemporalConfig): void {
  if (warned) return;
  const warning = unreadEnvWarning(env, used);
  if (warning === undefined) return;
  warned = true;
  process.emitWarning(warning, { type: 'DurableAgentsWarning', code: unreadEnvWarningCode });
}
