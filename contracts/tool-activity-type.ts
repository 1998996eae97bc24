/**
 * Activity type of a tool call: `<agent>/<tool>`, so two agents may each have a tool of the
 * same name with different implementations. These names are part of recorded histories:
 * renaming an agent or a tool changes the commands its runs emit.
 *
 * @example toolActivityType('watchlist', 'get_quote') // 'watchlist/get_quote'
 */
export function toolActivityType(agent: string, tool: string): string {
  return `${agent}/${tool}`;
}
