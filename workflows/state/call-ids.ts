import type { Message } from '../../contracts/messages';
import type { Await, AwaitItem } from '../../contracts/plan';
import type { ToolCall } from '../../contracts/tools';

/**
 * The call ids a run has used: every planned call and every call an await binds gets an id the
 * run never used before (`id#2`, `id#3` for a planner that repeats one), so the transcript never
 * holds two calls of one id, which model APIs refuse.
 */
export class CallIds {
  private readonly used = new Set<string>();

  /** @param messages the transcript so far (a continued run's): the ids its assistant messages opened are taken. */
  constructor(messages: readonly Message[]) {
    for (const m of messages) if (m.role === 'assistant') for (const c of m.toolCalls ?? []) this.used.add(c.id);
  }

  /** Whether a call of this id was ever planned in this run. */
  has(toolCallId: string): boolean {
    return this.used.has(toolCallId);
  }

  /** The ids of a turn's calls (the planner's, or `call_<turn>_<index>`), made unique, and taken. */
  assign(calls: readonly ToolCall[], turn: number): string[] {
    return calls.map((call, index) => {
      const base = call.id ?? `call_${turn}_${index}`;
      let id = base;
      for (let n = 2; this.used.has(id); n++) id = `${base}#${n}`;
      this.used.add(id);
      return id;
    });
  }

  /**
   * The call ids an await binds, made unique in the run the way planned calls are (`id#2`):
   * a planner that reuses an id (or binds one twice) would otherwise put two calls of one id in
   * the transcript. Undefined when no id needed changing.
   */
  uniqueInAwait(spec: Await): Await | undefined {
    const taken = new Set(this.used);
    let changed = false;
    const unique = (id: string): string => {
      let next = id;
      for (let n = 2; taken.has(next); n++) next = `${id}#${n}`;
      taken.add(next);
      if (next !== id) changed = true;
      return next;
    };
    const items = spec.items.map((item): AwaitItem => {
      if (item.kind === 'external_tools') return { ...item, calls: item.calls.map((c) => ({ ...c, toolCallId: unique(c.toolCallId) })) };
      return item.toolCallId === undefined ? item : { ...item, toolCallId: unique(item.toolCallId) };
    });
    return changed ? { ...spec, items } : undefined;
  }

  /** Takes call ids bound by an await, so later calls never reuse them. */
  markUsed(ids: readonly string[]): void {
    for (const id of ids) this.used.add(id);
  }
}
