import { tenantIdSchema } from '../contracts/tenant';
import type { ParsedArgs } from './args';
import { UsageError } from './exit-codes';

/** `--tenant`, described once for the commands that take it. */
export const tenantOption = { type: 'string', value: 'ID', description: 'whose run or session it is: started under this tenant, or only this tenant\'s listed' } as const;

/**
 * The `--tenant` of a command, checked as the run input checks it.
 *
 * @throws UsageError naming --tenant for an id that is not a tenant id.
 */
export function tenantOf(args: ParsedArgs): string | undefined {
  const tenant = args.string('tenant');
  if (tenant === undefined) return undefined;
  const parsed = tenantIdSchema().safeParse(tenant);
  if (!parsed.success) throw new UsageError(`--tenant: ${parsed.error.issues[0]?.message ?? 'not a tenant id'}`);
  return parsed.data;
}
