/**
 * Whether this bundle reports the state at each turn boundary (see `forkRun`). Always false in
 * the bundles that run workflows; the bundle that `forkRun` replays a history with swaps this
 * module for ./fork-capture-on, so normal runs never compute the report.
 */
export const forkCapture = false;
