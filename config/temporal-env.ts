import { existsSync } from 'node:fs';
import { z } from 'zod';

const flag = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['true', 'false', '1', '0'].includes(v), { message: `${name} must be true or false` })
    .transform((v) => v === 'true' || v === '1');

const file = (name: string) =>
  z
    .string()
    .trim()
    .min(1, `${name} is empty`)
    .refine((p) => existsSync(p), { message: `${name} names a file that does not exist` });

/** A host:port address: a host name, IPv4 or bracketed IPv6, and a port 1-65535. */
const address = z
  .string()
  .trim()
  .refine(
    (a) => {
      const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(a);
      return m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
    },
    { message: 'TEMPORAL_ADDRESS must be host:port (e.g. 127.0.0.1:7233 or my-ns.a1b2c.tmprl.cloud:7233)' },
  );

/** A name-like variable: not empty, at most 255 characters, no whitespace. */
export const nameVariable = (variable: string) =>
  z
    .string()
    .trim()
    .min(1, `${variable} is empty`)
    .max(255, `${variable} is longer than 255 characters`)
    .refine((v) => !/\s/.test(v), { message: `${variable} must not contain whitespace` });

/**
 * The Temporal connection variables, each checked on its own so that a bad value is reported at
 * start with the variable's name, not as a connection failure later.
 */
export const temporalEnvSchema = z.object({
  TEMPORAL_ADDRESS: address.optional(),
  TEMPORAL_NAMESPACE: nameVariable('TEMPORAL_NAMESPACE').optional(),
  TEMPORAL_TASK_QUEUE: nameVariable('TEMPORAL_TASK_QUEUE').optional(),
  TEMPORAL_API_KEY: z.string().trim().min(1, 'TEMPORAL_API_KEY is empty').optional(),
  TEMPORAL_TLS: flag('TEMPORAL_TLS').optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: file('TEMPORAL_TLS_CLIENT_CERT_PATH').optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: file('TEMPORAL_TLS_CLIENT_KEY_PATH').optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: file('TEMPORAL_TLS_SERVER_CA_CERT_PATH').optional(),
  TEMPORAL_TLS_CLIENT_CERT_DATA: z.string().includes('-----BEGIN', { message: 'TEMPORAL_TLS_CLIENT_CERT_DATA must be a PEM certificate' }).optional(),
  TEMPORAL_TLS_CLIENT_KEY_DATA: z.string().includes('-----BEGIN', { message: 'TEMPORAL_TLS_CLIENT_KEY_DATA must be a PEM key' }).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: z.string().includes('-----BEGIN', { message: 'TEMPORAL_TLS_SERVER_CA_CERT_DATA must be a PEM certificate' }).optional(),
  TEMPORAL_TLS_SERVER_NAME: nameVariable('TEMPORAL_TLS_SERVER_NAME').optional(),
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: flag('TEMPORAL_TLS_DISABLE_HOST_VERIFICATION').optional(),
  TEMPORAL_PROFILE: nameVariable('TEMPORAL_PROFILE').optional(),
  TEMPORAL_CONFIG_FILE: file('TEMPORAL_CONFIG_FILE').optional(),
});
export type TemporalEnv = z.infer<typeof temporalEnvSchema>;

const pairs = [
  ['TEMPORAL_TLS_CLIENT_CERT_PATH', 'TEMPORAL_TLS_CLIENT_CERT_DATA'],
  ['TEMPORAL_TLS_CLIENT_KEY_PATH', 'TEMPORAL_TLS_CLIENT_KEY_DATA'],
  ['TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'TEMPORAL_TLS_SERVER_CA_CERT_DATA'],
] as const;

/**
 * Validates the TEMPORAL_* variables (empty ones count as unset).
 *
 * @throws Error listing every bad variable and why, e.g.
 *   `TEMPORAL_ADDRESS must be host:port (...); TEMPORAL_TLS must be true or false`.
 */
export function parseTemporalEnv(env: NodeJS.ProcessEnv): TemporalEnv {
  const present = Object.fromEntries(Object.keys(temporalEnvSchema.shape).flatMap((k) => (env[k] !== undefined && env[k] !== '' ? [[k, env[k]]] : [])));
  const parsed = temporalEnvSchema.safeParse(present);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => i.message);
  for (const [path, data] of pairs) if (present[path] && present[data]) problems.push(`set ${path} or ${data}, not both`);
  if (problems.length > 0 || !parsed.success) throw new Error(`invalid Temporal connection settings: ${problems.join('; ')}`);
  if (parsed.data.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION) {
    throw new Error('TEMPORAL_TLS_DISABLE_HOST_VERIFICATION is not supported by the TypeScript SDK; set TEMPORAL_TLS_SERVER_NAME to the name in the server certificate instead');
  }
  return parsed.data;
}
