import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '../../contracts';

/** Characters of an MCP error result's text kept in the error message. */
export const errorTextChars = 2000;

type ContentItem = CallToolResult['content'][number];

/** One content item in a JSON-safe form; binary data stays on the worker (its size is reported). */
function contentItem(item: ContentItem): JsonValue {
  switch (item.type) {
    case 'text':
      return { type: 'text', text: item.text };
    case 'image':
    case 'audio':
      return { type: item.type, mimeType: item.mimeType, omitted: `binary data (${item.data.length} base64 characters) is not passed to the run` };
    case 'resource': {
      const r = item.resource;
      return 'text' in r && typeof r.text === 'string'
        ? { type: 'resource', uri: r.uri, ...(r.mimeType ? { mimeType: r.mimeType } : {}), text: r.text }
        : { type: 'resource', uri: r.uri, ...(r.mimeType ? { mimeType: r.mimeType } : {}), omitted: 'binary resource content is not passed to the run' };
    }
    case 'resource_link':
      return JSON.parse(JSON.stringify({ type: 'resource_link', uri: item.uri, name: item.name, description: item.description, mimeType: item.mimeType })) as JsonValue;
    default:
      return { type: String((item as { type?: unknown }).type ?? 'unknown'), omitted: 'content of an unknown type' };
  }
}

/**
 * The result of an MCP call as the run records it: `{ content, structuredContent? }`, with
 * binary content replaced by a note of its size (binary data must not enter workflow history).
 */
export function callResultToJson(result: CallToolResult): JsonValue {
  const content = (result.content ?? []).map(contentItem);
  const structured = result.structuredContent === undefined ? undefined : (JSON.parse(JSON.stringify(result.structuredContent)) as JsonValue);
  return { content, ...(structured !== undefined ? { structuredContent: structured } : {}) };
}

/** The text of an error result (`isError: true`), bounded, for the error message the planner sees. */
export function errorResultText(result: CallToolResult): string {
  const text = (result.content ?? [])
    .map((item) => (item.type === 'text' ? item.text : `[${item.type}]`))
    .join('\n')
    .trim();
  if (!text) return 'the tool reported an error without a message';
  return text.length > errorTextChars ? `${text.slice(0, errorTextChars)}… (${text.length - errorTextChars} more characters)` : text;
}
