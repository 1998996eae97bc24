/**
 * Workflow-clock time in ms. Inside the Temporal sandbox `Date` is deterministic: it returns
 * the time of the current workflow task, identical on every replay.
 */
export function workflowNowMs(): number {
  // The sandbox's `Date.now` is the same clock, without a Date object to build.
  // eslint-disable-next-line no-restricted-syntax -- this is the function the rule points to
  return Date.now();
}

/** {@link workflowNowMs} as an ISO string, for event timestamps. */
export function workflowNowIso(): string {
  return new Date(workflowNowMs()).toISOString();
}
