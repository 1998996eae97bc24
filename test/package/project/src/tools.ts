import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { implementTool, type ToolImplementation } from 'durable-agents/worker';
import { addNote, listNotes } from './agent';

const file = process.env.NOTES_FILE ?? 'notes.jsonl';

export const tools: ToolImplementation[] = [
  implementTool(addNote, ({ text }, ctx) => {
    appendFileSync(file, `${JSON.stringify({ text, key: ctx.idempotencyKey })}\n`);
    return { saved: text };
  }),
  implementTool(listNotes, () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text) : [])),
];
