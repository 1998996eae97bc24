/** A recording that cannot be evaluated; the message says what is wrong with it. */
export class RecordingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingError';
  }
}
