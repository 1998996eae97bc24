import { z } from 'zod';
import { defineAgent, defineTool, type PlanResult, type Planner, type ToolOutput } from 'durable-agents/workflow';

/** A side effect that needs a human's approval. */
export const addNote = defineTool({
  name: 'add_note',
  description: 'Save a note',
  // z.lazy: built only when a run first uses the tool, not for every run's start.
  input: z.lazy(() => z.object({ text: z.string().min(1) })),
  requiresConfirmation: true,
});

export const listNotes = defineTool({ name: 'list_notes', description: 'List saved notes', input: z.lazy(() => z.object({})) });

/** A planner written as code: save the user's note, then list the notes, then answer. */
function notesPlanner(order: 'add-first' | 'list-first'): Planner {
  const step = (done: readonly ToolOutput[], text: string): PlanResult => {
    const sequence = order === 'add-first' ? ['add_note', 'list_notes'] : ['list_notes', 'add_note'];
    const next = sequence[done.length];
    if (next === 'add_note') return { type: 'tool_calls', calls: [{ name: 'add_note', args: { text } }] };
    if (next === 'list_notes') return { type: 'tool_calls', calls: [{ name: 'list_notes', args: {} }] };
    const notes = done.find((o) => o.name === 'list_notes')?.result;
    return { type: 'final', response: { text: `Saved. Notes: ${JSON.stringify(notes)}` } };
  };
  const textOf = (messages: readonly { role: string; content?: string | null }[]): string =>
    messages.find((m) => m.role === 'user')?.content ?? '';
  return {
    planStart: ({ messages }) => step([], textOf(messages)),
    planResume: ({ messages, toolOutputs }) => step(toolOutputs, textOf(messages)),
  };
}

export const notesAgent = defineAgent({
  name: 'notes',
  description: 'Keeps notes',
  tools: [addNote, listNotes],
  createPlanner: () => notesPlanner('add-first'),
});

/** The same agent after a careless edit that swaps the order of its tool calls. */
export const reorderedNotesAgent = defineAgent({ ...notesAgent, createPlanner: () => notesPlanner('list-first') });
