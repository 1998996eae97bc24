/**
 * Untrusted text in messages. Failure messages travel as protobuf strings: a lone UTF-16
 * surrogate cannot be encoded there (the SDK core shuts the worker down), and an echoed 1 MB
 * value becomes a 1 MB failure in history. Sandbox-safe (no Node APIs).
 */

const loneSurrogates = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Longest failure message a run produces; longer ones are cut with a note. */
export const maxFailureMessageChars = 2000;

/** Whether `text` is well-formed Unicode (no lone surrogates). */
export function isWellFormedText(text: string): boolean {
  return text.search(loneSurrogates) === -1;
}

/** `text` with every lone surrogate replaced by U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(loneSurrogates, '\ufffd');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** A failure message that can always be encoded, at most {@link maxFailureMessageChars} long. */
export function failureMessage(text: string): string {
  return wellFormed(cut(text, maxFailureMessageChars));
}

/**
 * Longest echo of a caller's value (an id, a name, a path parameter) in an error message or a
 * rejection the run records: the HTTP API's and the run's rejections cut echoes alike.
 */
export const maxEchoChars = 100;

/** A caller's id or name as a message echoes it: well-formed, at most `max` characters of it, with a note of the rest. */
export function echoed(text: string, max = maxEchoChars): string {
  return wellFormed(cut(text, max));
}

/** Ids for a message: the first `maxItems`, each {@link echoed}, and how many more there are. */
export function echoedList(items: readonly string[], maxItems = 10): string {
  const shown = items.slice(0, maxItems).map((item) => echoed(item));
  return items.length > maxItems ? `${shown.join(', ')} and ${items.length - maxItems} more` : shown.join(', ');
}

/** Untrusted text quoted for a message: well-formed, escaped, at most `max` characters of it. */
export function quoted(text: string, max = 120): string {
  return JSON.stringify(wellFormed(cut(text, max)));
}

/**
 * `value` with every string in it (object keys too) made well-formed. Returns `value` itself
 * when nothing needed a change, so the common case copies nothing. Non-JSON values (class
 * instances, functions) are returned as they are.
 */
export function wellFormedValue<T>(value: T): T {
  if (typeof value === 'string') return (isWellFormedText(value) ? value : wellFormed(value)) as T;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => wellFormedValue(item));
    return (items.some((item, i) => item !== value[i]) ? items : value) as T;
  }
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const [k, v] = [wellFormedValue(key), wellFormedValue(item as unknown)];
    if (k !== key || v !== item) changed = true;
    return [k, v] as const;
  });
  return (changed ? Object.fromEntries(entries) : value) as T;
}
