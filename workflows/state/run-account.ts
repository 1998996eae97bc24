import type { AccountUsage, QuotaHold } from '../../contracts/tenant-account';
import type { ModelUsageReport } from '../agents/planner';

/**
 * What a run with a tenant account knows of it (workflows/run/tenant-admission.ts keeps it): the
 * hold on its tenant's model calls while a token or money quota is spent, and where its model
 * usage goes. RunState has one when the run joined an account.
 */
export interface RunAccountLink {
  readonly tenant: string;
  /** Set while the tenant's model calls are held (the account said so). */
  readonly hold: QuotaHold | undefined;
  /** One planner turn's model usage, recorded in the tenant's ledger once (a signal: exactly once in history). */
  recordUsage(report: ModelUsageReport): void;
  /** What the run's next execution carries of it (carried-state.ts `tenantAccount`). */
  carried(): { workflowId: string; hold?: QuotaHold; unsent?: AccountUsage[] };
}
