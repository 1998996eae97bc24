import type { JsonValue } from '../../contracts/json';

/**
 * Fills `{key}` placeholders of a template from session state: strings as they are, other
 * values as JSON. Unknown keys stay as written, like Python's `Template.safe_substitute`.
 *
 * @example renderTemplate("Watchlist: {watchlist}", { watchlist: ['AAPL'] }) // 'Watchlist: ["AAPL"]'
 */
export function renderTemplate(template: string, state: Readonly<Record<string, JsonValue>>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, key: string) => {
    if (!Object.prototype.hasOwnProperty.call(state, key)) return whole;
    const value = state[key];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
