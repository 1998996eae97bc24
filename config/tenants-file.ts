import { readFileSync } from 'node:fs';
import { parseTenantsConfig, type TenantsConfig } from '../contracts/tenant-settings';

/**
 * The deployment's tenants file, from `DURABLE_AGENTS_TENANTS_FILE` (see
 * contracts/tenant-settings.ts and docs/serving-many-users.md): undefined when unset, so a
 * deployment without one keeps no accounts and sets no dispatch keys.
 *
 * @throws Error naming the variable, the file and the field when it cannot be read or is wrong.
 */
export function tenantsConfigFromEnv(env: { readonly DURABLE_AGENTS_TENANTS_FILE?: string } = process.env): TenantsConfig | undefined {
  const file = env.DURABLE_AGENTS_TENANTS_FILE?.trim();
  if (!file) return undefined;
  const where = `DURABLE_AGENTS_TENANTS_FILE ${file}`;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const reason = err instanceof SyntaxError ? 'not valid JSON' : ((err as NodeJS.ErrnoException).code ?? String(err));
    throw new Error(`${where}: ${reason}`);
  }
  return parseTenantsConfig(raw, where);
}
