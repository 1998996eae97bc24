/** Where a command prints: text lines for people, or one JSON value per line with `--json`. */
export class Output {
  /**
   * @param write receives each line (without newline).
   * @param json print JSON instead of text.
   */
  constructor(
    private readonly write: (line: string) => void,
    readonly json: boolean,
  ) {}

  /** Prints `value` as one JSON line in `--json` mode, otherwise the lines of `human()`. */
  emit(value: unknown, human: () => string | readonly string[]): void {
    if (this.json) {
      this.write(JSON.stringify(value));
      return;
    }
    const lines = human();
    for (const line of typeof lines === 'string' ? [lines] : lines) this.write(line);
  }

  /** Prints plain text (help); the same in both modes. */
  text(text: string): void {
    for (const line of text.replace(/\n$/, '').split('\n')) this.write(line);
  }
}
