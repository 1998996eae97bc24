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
  const raw = readJsonFile(variable, file);
  if (!Array.isArray(raw)) throw new Error(`${variable} ${file}: expected a JSON array of ${shape}`);
  return raw;
}

/**
 * The content of a JSON file, named by the variable that points at it.
 *
 * @throws Error naming the variable and file when the file cannot be read or is not JSON (never
 *   quoting its content: it may hold secrets).
 */
export function readJsonFile(variable: string, file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (err) {
    const reason = err instanceof SyntaxError ? 'not valid JSON' : ((err as NodeJS.ErrnoException).code ?? String(err));
    throw new Error(`${variable} ${file}: ${reason}`);
  }
}
