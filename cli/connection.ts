import { temporalConfigFromEnv, type TemporalConfig } from '../config/temporal';
import type { ParsedArgs } from './args';
import { UsageError } from './exit-codes';

/**
 * The Temporal connection of a command: the TEMPORAL_* environment, overridden by
 * `--address`, `--namespace` and `--task-queue`.
 *
 * @throws UsageError when the environment is inconsistent (e.g. half a TLS key pair).
 */
export function resolveConfig(env: NodeJS.ProcessEnv, args: ParsedArgs): TemporalConfig {
  let config: TemporalConfig;
  try {
    config = temporalConfigFromEnv(env);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const address = args.string('address');
  const namespace = args.string('namespace');
  const taskQueue = args.string('task-queue');
  for (const [flag, value] of [['--address', address], ['--namespace', namespace], ['--task-queue', taskQueue]] as const) {
    if (value !== undefined && value.trim() === '') throw new UsageError(`${flag} must not be empty`);
  }
  return {
    ...config,
    ...(address !== undefined ? { address } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(taskQueue !== undefined ? { taskQueue } : {}),
  };
}
