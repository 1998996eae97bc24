import type { AccountUsage } from '../../contracts/tenant-account';

/**
 * The usage records of a run that have not reached its tenant's account yet. A record is one
 * signal; the server refuses a signal to an account that has reached its limit of signals per
 * execution (a flood of records faster than it continues as new) or that is gone. Refused records
 * wait here and go again with the run's next record, when it continues as new (carried) and
 * before it leaves: a record that was refused was not applied, so sending it again counts it once.
 * Pure: the run's driver (tenant-admission.ts) sends what it answers.
 */
export class UsageOutbox {
  private unsent: AccountUsage[];

  constructor(carried: readonly AccountUsage[] = []) {
    this.unsent = [...carried];
  }

  /** What to send now: the records refused before, first, then `next`. */
  take(next?: AccountUsage): AccountUsage[] {
    const out = next ? [...this.unsent, next] : this.unsent;
    this.unsent = [];
    return out;
  }

  /** A record the server refused: it goes again with the next ones. */
  refused(usage: AccountUsage): void {
    this.unsent.push(usage);
  }

  /** Records not yet sent (what a continue-as-new carries). */
  get pending(): readonly AccountUsage[] {
    return this.unsent;
  }
}
