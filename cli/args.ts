import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { UsageError } from './exit-codes';

/** One command-line option: how it parses and how help describes it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** The option may be given several times (values collect in order). */
  readonly multiple?: boolean;
  /** One-letter alias, e.g. `h` for `--help`. */
  readonly short?: string;
  /** Placeholder of the value in help, e.g. `TEXT`. */
  readonly value?: string;
  readonly description: string;
}

/** Options by long name (without `--`). */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type RawValue = string | boolean | (string | boolean)[] | undefined;

/** Options accepted by every command. */
export const globalOptions = {
  address: { type: 'string', value: 'HOST:PORT', description: 'Temporal frontend address (default: TEMPORAL_ADDRESS or 127.0.0.1:7233)' },
  namespace: { type: 'string', value: 'NAME', description: 'Temporal namespace (default: TEMPORAL_NAMESPACE or default)' },
  'task-queue': { type: 'string', value: 'NAME', description: 'task queue of agent runs (default: TEMPORAL_TASK_QUEUE or durable-agents)' },
  json: { type: 'boolean', description: 'print machine-readable JSON instead of text' },
  help: { type: 'boolean', short: 'h', description: 'print usage' },
} as const satisfies OptionSpecs;

/**
 * Parsed options and positionals of one command, with typed accessors that throw a
 * {@link UsageError} naming the flag when a value is missing or malformed.
 */
export class ParsedArgs {
  constructor(
    private readonly values: Readonly<Record<string, RawValue>>,
    readonly positionals: readonly string[],
  ) {}

  /** The value of a string option, if given. */
  string(name: string): string | undefined {
    const value = this.values[name];
    if (Array.isArray(value)) return value.length ? String(value[value.length - 1]) : undefined;
    return typeof value === 'string' ? value : undefined;
  }

  /** The value of a string option that must be given. */
  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw new UsageError(`missing --${name}`);
    return value;
  }

  /** Every value of a repeatable string option, in order. */
  strings(name: string): string[] {
    const value = this.values[name];
    if (value === undefined) return [];
    return (Array.isArray(value) ? value : [value]).map(String);
  }

  /** Whether a boolean option was given. */
  flag(name: string): boolean {
    return this.values[name] === true;
  }

  /** An integer option (decimal digits only), at least `min`. */
  int(name: string, min = 1): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`--${name} must be an integer, got '${text}'`);
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < min) throw new UsageError(`--${name} must be an integer >= ${min}, got '${text}'`);
    return value;
  }

  /** A decimal option greater than 0 (an amount of money). */
  positiveNumber(name: string): number | undefined {
    return this.decimal(name, 'a number > 0', (value) => value > 0);
  }

  /** A decimal option of 0 or more (an amount of money that may be none, e.g. a quota that stops). */
  amount(name: string): number | undefined {
    return this.decimal(name, 'an amount >= 0', () => true);
  }

  /** A decimal option (digits, an optional fraction) that `fits`; anything else is refused naming the flag and `what` it must be. */
  private decimal(name: string, what: string, fits: (value: number) => boolean): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const value = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN;
    if (Number.isNaN(value) || !fits(value)) throw new UsageError(`--${name} must be ${what} such as 2.50, got '${text}'`);
    return value;
  }

  /** A JSON option, parsed and validated by `schema`. */
  json<S extends z.ZodType>(name: string, schema: S): z.output<S> | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    return parseJsonValue(`--${name}`, text, schema);
  }

  /** The positional argument at `index` (declared by the command, so present). */
  positional(index: number): string {
    const value = this.positionals[index];
    if (value === undefined) throw new UsageError(`missing argument ${index + 1}`);
    return value;
  }
}

/**
 * Parses JSON text and validates it; errors name `what` (a flag or a file).
 *
 * @throws UsageError on invalid JSON or a value the schema rejects.
 */
export function parseJsonValue<S extends z.ZodType>(what: string, text: string, schema: S): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what}: invalid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`${what}: ${issuesText(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * Validates a value built from flags; issue paths are named by their flag when `flags` maps
 * the first path element (e.g. `{ content: '--content' }`).
 *
 * @throws UsageError naming what was wrong.
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, flags: Readonly<Record<string, string>> = {}): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UsageError(issuesText(parsed.error.issues, flags));
  return parsed.data;
}

function issuesText(issues: readonly { path: readonly PropertyKey[]; message: string }[], flags: Readonly<Record<string, string>> = {}): string {
  return issues
    .map((issue) => {
      const [head, ...rest] = issue.path.map(String);
      if (head === undefined) return issue.message;
      const where = flags[head] ? [flags[head], ...rest].join('.') : [head, ...rest].join('.');
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * Parses a command's arguments (global options are accepted everywhere).
 *
 * @param positionals names of the positionals the command takes, e.g. `['RUN']`; a last name
 *   ending in `…` takes any number of further arguments (e.g. `['HISTORY…']`).
 * @param optional how many of the last positionals may be left out.
 * @throws UsageError on an unknown option, a missing value, or a wrong number of positionals.
 */
export function parseCommandArgs(argv: readonly string[], options: OptionSpecs, positionals: readonly string[], optional = 0): ParsedArgs {
  const config: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  const all: OptionSpecs = { ...globalOptions, ...options };
  for (const [name, spec] of Object.entries(all)) {
    config[name] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}), ...(spec.short ? { short: spec.short } : {}) };
  }
  let parsed: { values: Record<string, RawValue>; positionals: string[] };
  try {
    parsed = parseArgs({ args: joinNegativeValues(argv, all), options: config, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError(cleanParseError(err));
  }
  const args = new ParsedArgs(parsed.values, parsed.positionals);
  if (args.flag('help')) return args;
  const variadic = positionals[positionals.length - 1]?.endsWith('…') === true;
  if (!variadic && parsed.positionals.length > positionals.length) {
    throw new UsageError(`unexpected argument '${parsed.positionals[positionals.length]}'`);
  }
  if (parsed.positionals.length < positionals.length - optional) {
    throw new UsageError(`missing ${positionals[parsed.positionals.length]}`);
  }
  return args;
}

/**
 * `--opt -1` as `--opt=-1` for string options, so a negative number reaches the option's own
 * check ("must be an integer >= 1") instead of node's "argument is ambiguous".
 */
function joinNegativeValues(argv: readonly string[], options: OptionSpecs): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const next = argv[i + 1];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * node:util parseArgs errors without their `TypeError [CODE]:` prefix; an unknown option keeps
 * only its first sentence (the rest is advice about positionals).
 */
function cleanParseError(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).replace(/^\w*Error \[[A-Z_]+\]: /, '');
  const unknown = /^Unknown option ('[^']*')/.exec(message);
  return unknown ? `unknown option ${unknown[1]}` : message.replace(/\s*\n\s*/g, ' ');
}

/**
 * Splits a command line into the command name and the rest. Global options may come before
 * the command (`agentctl --json status RUN`); the first other word is the command.
 */
export function splitCommand(argv: readonly string[]): { command: string | undefined; rest: string[] } {
  const valued = new Set(Object.entries(globalOptions).filter(([, s]) => s.type === 'string').map(([n]) => `--${n}`));
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? '';
    if (token === '--') break;
    if (valued.has(token)) {
      i++;
      continue;
    }
    if (token.startsWith('-')) continue;
    return { command: token, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { command: undefined, rest: [...argv] };
}
