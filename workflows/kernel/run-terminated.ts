/** Thrown inside the loop when a kill or a cancellation request ends the run. */
export class RunTerminated extends Error {
  constructor() {
    super('the run was terminated');
    this.name = 'RunTerminated';
  }
}
