/** Types shared by the reference workflows (bench/raw-workflows.ts) and their worker. */

/** Input of the reference loop: T turns of K parallel echo calls. */
export interface RawLoopInput {
  readonly turns: number;
  readonly callsPerTurn: number;
}

/** The one activity of the reference loop. */
export interface RawActivities {
  echo(args: { text: string }): Promise<{ text: string }>;
}

/** The activities of the reference worker: a no-op echo. */
export const rawActivities: RawActivities = {
  echo: (args) => Promise.resolve({ text: args.text }),
};

/** Query of the waiting reference loop: true once its turns ran and it waits for its release. */
export const rawWaitingQueryName = 'waiting';
/** Signal that ends the waiting reference loop. */
export const rawReleaseSignalName = 'release';
