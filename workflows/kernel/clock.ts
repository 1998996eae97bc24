/**
 * Workflow-clock time in ms. Inside the Temporal sandbox `Date` is deterministic: it returns
 * the time of the current workflow task, identical on every replay.
 */
export function workflowNowMs(): number {
  return new Date().getTime();
}

/** {@link workflowNowMs} as an ISO string, for event timestamps. */
export function workflowNowIso(): string {
  return new Date(workflowNowMs()).toISOString();
}
