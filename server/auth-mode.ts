import type { DeltaKey } from '../config/delta-keys';
import type { AuthConfig } from './auth';

/**
 * One line saying how a server authenticates, for its start-up output: the token holders and
 * roles (never the tokens), or a warning that local-dev mode lets anyone in as admin.
 */
export function authModeLine(auth: AuthConfig): string {
  const holders = auth.tokens.map((t) => `${t.name} (${t.role})`).join(', ');
  if (auth.localDev) {
    return `auth: LOCAL-DEV MODE: requests without a token act as admin "local-dev"; keep this server on a trusted machine${holders ? `; tokens also accepted: ${holders}` : ''}`;
  }
  return `auth: bearer tokens (Authorization: Bearer <token>) of ${holders || 'nobody'}`;
}

/**
 * One line saying whose token deltas a server takes, for its start-up output: only those signed
 * with its delta keys (their ids), or any publisher's, with a warning naming the publisher tokens
 * not scoped to task queues (each may then show text as any run's model).
 */
export function deltasModeLine(auth: AuthConfig, deltaKeys: readonly DeltaKey[]): string {
  if (deltaKeys.length > 0) return `token deltas: only those signed with delta key${deltaKeys.length > 1 ? 's' : ''} ${deltaKeys.map((k) => k.id).join(', ')} are taken`;
  const unscoped = auth.tokens.filter((t) => t.role === 'publisher' && t.taskQueues === undefined).map((t) => t.name);
  const line = 'token deltas: unsigned, taken from any publisher token for the runs it may publish for (set DURABLE_AGENTS_DELTAS_KEYS on workers and servers to require signed ones)';
  return unscoped.length > 0 ? `${line}; WARNING: publisher token${unscoped.length > 1 ? 's' : ''} ${unscoped.join(', ')} ${unscoped.length > 1 ? 'are' : 'is'} not scoped to task queues and may write live text into any run` : line;
}
