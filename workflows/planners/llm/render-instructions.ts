import type { JsonValue } from '../../../contracts';

const placeholder = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Fills `{key}` placeholders of system instructions from the run's session state, as the
 * seed agent does each turn: strings go in as they are, other values as JSON. Placeholders
 * without a session key stay untouched (like Python's `safe_substitute`).
 *
 * @example renderInstructions('The watchlist is: {watchlist}', { watchlist: ['AAPL'] }) // 'The watchlist is: ["AAPL"]'
 */
export function renderInstructions(template: string, sessionState: Readonly<Record<string, JsonValue>>): string {
  return template.replace(placeholder, (whole, key: string) => {
    if (!Object.prototype.hasOwnProperty.call(sessionState, key)) return whole;
    const value = sessionState[key];
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  });
}
