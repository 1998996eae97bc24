import { createInterface, type Interface } from 'node:readline';

/** Thrown when input ends (Ctrl-D, or the end of a pipe) while an answer is needed. */
export class EndOfInput extends Error {
  constructor() {
    super('end of input');
    this.name = 'EndOfInput';
  }
}

/** Asks questions and shows lines; what the prompts of `interactive` talk to. */
export interface Prompter {
  /**
   * Shows `prompt` and reads one line (trimmed).
   *
   * @throws EndOfInput when input has ended.
   */
  ask(prompt: string): Promise<string>;
  /** Shows one line. */
  say(line: string): void;
}

/**
 * Lines of a stream, queued: lines that arrive before they are asked for (a pipe delivers
 * them all at once) wait for the next {@link LineReader.next}.
 */
export class LineReader {
  private readonly queue: string[] = [];
  private readonly waiters: ((line: string | undefined) => void)[] = [];
  private readonly rl: Interface;
  private closed = false;
  /** Resolves when input has ended. */
  readonly ended: Promise<void>;

  constructor(input: NodeJS.ReadableStream) {
    this.rl = createInterface({ input, crlfDelay: Infinity, terminal: false });
    this.rl.on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.queue.push(line);
    });
    this.ended = new Promise((resolve) =>
      this.rl.once('close', () => {
        this.closed = true;
        for (const waiter of this.waiters.splice(0)) waiter(undefined);
        resolve();
      }),
    );
  }

  /** The next line, or undefined once input has ended and no line is queued. */
  next(): Promise<string | undefined> {
    const line = this.queue.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops reading (lets the process exit). */
  close(): void {
    this.rl.close();
  }
}

/**
 * A {@link Prompter} over a line reader: prompts through `prompt`, lines through `say`.
 *
 * @param echo show each line read after its prompt (input from a pipe is not echoed by a terminal).
 */
export function linePrompter(reader: LineReader, prompt: (text: string) => void, say: (line: string) => void, echo: boolean): Prompter {
  return {
    async ask(text) {
      prompt(text);
      const line = await reader.next();
      if (line === undefined || echo) say(line ?? '');
      if (line === undefined) throw new EndOfInput();
      return line.trim();
    },
    say,
  };
}
