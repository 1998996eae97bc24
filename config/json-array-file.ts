import { readFileSync } from 'node:fs';

/**
 * The entries of a JSON file that holds an array, named by the variable that points at it.
 *
 * @param variable the environment variable that named the file, for errors
 * @param shape what each entry looks like, for errors (e.g. `{ id, key }`)
 * @throws Error naming the variable and file when the file cannot be read, is not JSON, or is
 *   not an array (never quoting its content: it may hold secrets).
 */
export function readJsonArrayFile(variable: string, file: string, shape: string): unknown[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const reason = err instanceof SyntaxError ? 'not valid JSON' : ((err as NodeJS.ErrnoException).code ?? String(err));
    throw new Error(`${variable} ${file}: ${reason}`);
  }
  if (!Array.isArray(raw)) throw new Error(`${variable} ${file}: expected a JSON array of ${shape}`);
  return raw;
}
