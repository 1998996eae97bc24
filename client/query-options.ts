/** Options of the query methods. */
export interface QueryOptions {
  /**
   * Give up after this long (an AgentClientError `unanswered`), in one try. Default: three tries
   * of 5, 10 and 20 s, since a worker can lose a query of a closed run when several arrive at once.
   */
  readonly timeoutMs?: number;
}

/** Options of {@link RunHandle.pendingInputs}. */
export interface PendingInputsOptions extends QueryOptions {
  /** `false`: ask this run only (one query); its `tree` then lists at most this run. Default true. */
  readonly subAgents?: boolean;
}
