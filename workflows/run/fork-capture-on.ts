/** Swapped in for ./fork-capture by the fork replay bundle (see worker/fork.ts). */
export const forkCapture = true;
