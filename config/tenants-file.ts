import { readJsonFile } from './json-array-file';
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
  const raw = readJsonFile('DURABLE_AGENTS_TENANTS_FILE', file);
  return parseTenantsConfig(raw, `DURABLE_AGENTS_TENANTS_FILE ${file}`);
}
