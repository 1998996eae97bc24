import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { readJsonArrayFile } from '../config/json-array-file';
import { tenantIdSchema } from '../contracts/tenant';
import { ApiError } from './errors';

/**
 * Roles of the API. `viewer` reads; `operator` also controls runs and answers approvals and
 * questions; `admin` also rewinds, forks and kills. `publisher` is for workers only: it may
 * publish token deltas and nothing else.
 */
export const roleSchema = z.enum(['viewer', 'operator', 'admin', 'publisher']);
export type Role = z.infer<typeof roleSchema>;

/** What a route needs: a role (admin ⊇ operator ⊇ viewer), or nothing at all (`public`). */
export type Access = Role | 'public';

const rank: Record<Exclude<Role, 'publisher'>, number> = { viewer: 1, operator: 2, admin: 3 };

/** One bearer token and what it may do. */
export const tokenGrantSchema = z
  .object({
    /** Who holds it; shown in `by` of approvals and in logs. Never the token itself. */
    name: z.string().min(1).max(100),
    role: roleSchema,
    token: z.string().min(16, 'tokens must be at least 16 characters'),
    /**
     * For a `publisher`: the task queues of the runs it may publish for (its workers' queues).
     * Deltas and announcements of runs on other queues are refused. Without it, any run.
     */
    taskQueues: z.array(z.string().min(1).max(1000)).min(1).max(1000).optional(),
    /**
     * The tenant the token acts for: it starts runs and sessions under it (and may not name
     * another), lists only its runs and sessions, and reaches no run or session of another tenant.
     * Without it, every tenant's (an admin may then start runs for a tenant it names).
     */
    tenant: tenantIdSchema().optional(),
  })
  .refine((grant) => grant.taskQueues === undefined || grant.role === 'publisher', { path: ['taskQueues'], message: 'only publisher tokens are scoped to task queues' })
  .refine((grant) => grant.tenant === undefined || grant.role !== 'publisher', { path: ['tenant'], message: 'publisher tokens are not scoped to tenants (scope them to task queues)' });
export type TokenGrant = z.infer<typeof tokenGrantSchema>;

/** Who made a request. */
export interface Principal {
  readonly name: string;
  readonly role: Role;
  /** A publisher scoped to these task queues (see {@link TokenGrant}). */
  readonly taskQueues?: readonly string[];
  /** The tenant the token is scoped to (see {@link TokenGrant}). */
  readonly tenant?: string;
}

/** How the server authenticates requests. */
export interface AuthConfig {
  readonly tokens: readonly TokenGrant[];
  /**
   * Local-dev mode: requests without a token act as `admin` named `local-dev`. Off unless
   * switched on explicitly; a server in this mode says so at start.
   */
  readonly localDev: boolean;
}

/**
 * Reads the auth config from the environment:
 * - `DURABLE_AGENTS_TOKENS`: `name:role:token` entries separated by commas;
 * - `DURABLE_AGENTS_TOKENS_FILE`: a JSON file, an array of `{ name, role, token }` (and
 *   optionally `tenant`, `taskQueues`);
 * - `DURABLE_AGENTS_LOCAL_DEV=1`: local-dev mode (no token needed).
 *
 * @throws Error naming the bad entry (never echoing a token).
 */
export function authFromEnv(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const tokens: TokenGrant[] = [];
  const inline = env.DURABLE_AGENTS_TOKENS?.trim();
  if (inline) {
    inline.split(',').forEach((entry, i) => {
      const [name, role, ...rest] = entry.trim().split(':');
      tokens.push(parseGrant({ name, role, token: rest.join(':') }, `DURABLE_AGENTS_TOKENS entry ${i + 1} (expected name:role:token)`));
    });
  }
  const file = env.DURABLE_AGENTS_TOKENS_FILE?.trim();
  if (file) {
    const entries = readJsonArrayFile('DURABLE_AGENTS_TOKENS_FILE', file, '{ name, role, token }');
    entries.forEach((entry, i) => tokens.push(parseGrant(entry, `DURABLE_AGENTS_TOKENS_FILE ${file} entry ${i + 1}`)));
  }
  const localDev = /^(1|true|yes)$/i.test(env.DURABLE_AGENTS_LOCAL_DEV?.trim() ?? '');
  return { tokens, localDev };
}

function parseGrant(value: unknown, where: string): TokenGrant {
  const parsed = tokenGrantSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`${where}: ${issue ? `${issue.path.join('.') || 'entry'}: ${issue.message}` : 'invalid'}`);
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Who holds `token` (from `Authorization: Bearer`, or `access_token` where headers cannot be
 * set: EventSource and WebSocket in browsers).
 *
 * @throws ApiError `unauthorized` without a valid token (unless local-dev mode is on).
 */
export function authenticate(auth: AuthConfig, token: string | undefined): Principal {
  if (token) {
    const grant = auth.tokens.find((t) => sameToken(t.token, token));
    if (grant) return { name: grant.name, role: grant.role, ...(grant.taskQueues ? { taskQueues: grant.taskQueues } : {}), ...(grant.tenant ? { tenant: grant.tenant } : {}) };
    throw new ApiError('unauthorized', 'the bearer token is not valid');
  }
  if (auth.localDev) return { name: 'local-dev', role: 'admin' };
  throw new ApiError('unauthorized', 'missing bearer token: send Authorization: Bearer <token>');
}

/** Whether `principal` may use a route that needs `access`. */
export function isAllowed(principal: Principal, access: Access): boolean {
  if (access === 'public') return true;
  if (access === 'publisher' || principal.role === 'publisher') return principal.role === access || principal.role === 'admin';
  return rank[principal.role] >= rank[access];
}

/**
 * @throws ApiError `forbidden` naming the role needed.
 */
export function authorize(principal: Principal, access: Access): void {
  if (!isAllowed(principal, access)) throw new ApiError('forbidden', `${principal.name} has role ${principal.role}; this needs ${access}`);
}

/** The token of a request: the Authorization header, else the `access_token` query parameter. */
export function requestToken(authorization: string | undefined, accessToken: string | undefined): string | undefined {
  if (authorization) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (!match?.[1]) throw new ApiError('unauthorized', 'the Authorization header must be "Bearer <token>"');
    return match[1].trim();
  }
  return accessToken || undefined;
}
