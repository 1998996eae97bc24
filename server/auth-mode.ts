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
