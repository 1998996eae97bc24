import type { AwaitItem, PendingInputs } from '../../contracts';
import type { RunPendingInputs } from '../../client/run-tree';
import { openItems } from './answers';

/** One call waiting for confirmation. */
export type PendingApproval = PendingInputs['approvals'][number];

/** A call waiting for confirmation on one line: `call_0_0  add_to_watchlist {"symbols":["AAPL"]}  since …`. */
export function renderApproval(a: PendingApproval): string {
  return `${a.toolCallId}  ${a.name} ${JSON.stringify(a.args)}  since ${a.requestedAt} (turn ${a.turn})`;
}

/** The body of an await item: its question, its questions with options, or its calls. */
export function renderItemBody(item: AwaitItem): string[] {
  switch (item.kind) {
    case 'clarification':
      return [
        item.question,
        ...(item.missingFields?.length ? [`fields: ${item.missingFields.join(', ')}`] : []),
        ...(item.defaultAnswer !== undefined ? [`default: ${item.defaultAnswer}`] : []),
      ];
    case 'questions':
      return [
        ...(item.title ? [item.title] : []),
        ...item.questions.map(
          (q) => `${q.id}: ${q.prompt}${q.allowMultiple ? ' (several allowed)' : ''} options: ${q.options.map((o) => `${o.id} (${o.label})`).join(', ')}`,
        ),
      ];
    case 'external_tools':
      return item.calls.map((c) => `${c.toolCallId}  ${c.name} ${JSON.stringify(c.args)}`);
  }
}

/**
 * What a run waits on, for people:
 *
 * ```
 * approvals (waiting for confirmation):
 *   call_0_0  add_to_watchlist {"symbols":["AAPL"]}  since 2025-01-01T00:00:00.000Z (turn 0)
 * await await-1 (until …):
 *   prefs  questions  open
 *     color: Favourite colour? options: red (Red), blue (Blue)
 * ```
 */
export function renderPending(runId: string, p: PendingInputs): string[] {
  if (p.approvals.length === 0 && !p.await) return [`${runId} waits for nothing`];
  const lines: string[] = [];
  if (p.approvals.length > 0) lines.push('approvals (waiting for confirmation):', ...p.approvals.map((a) => `  ${renderApproval(a)}`));
  if (p.await) {
    lines.push(`await ${p.await.awaitId}${p.await.deadline ? ` (until ${p.await.deadline})` : ''}:`);
    const typed = new Map(openItems(p).map((i) => [i.item.id, i.item]));
    for (const entry of p.await.items) {
      lines.push(`  ${entry.id}  ${entry.kind}  ${entry.answered ? 'answered' : 'open'}`);
      const item = typed.get(entry.id);
      lines.push(...(item ? renderItemBody(item) : [JSON.stringify(entry.item)]).map((l) => `    ${l}`));
    }
  }
  return lines;
}

/** One line on what is still open after a decision or an answer. */
export function renderRemaining(p: PendingInputs): string {
  const open = p.await?.items.filter((i) => !i.answered).map((i) => i.id) ?? [];
  const parts = [
    ...(p.approvals.length ? [`approvals: ${p.approvals.map((a) => a.toolCallId).join(', ')}`] : []),
    ...(open.length ? [`await items: ${open.join(', ')}`] : []),
  ];
  return parts.length ? `still waiting: ${parts.join('; ')}` : 'nothing else waits';
}

/**
 * What a run and its sub-agent runs wait on, for people: the run's own inputs as
 * {@link renderPending} prints them, then each sub-agent run that waits under a heading with
 * its path (`--path` of approve, reject, edit, replace and answer).
 */
export function renderPendingTree(runId: string, p: RunPendingInputs): string[] {
  if (p.tree.length === 0) return [`${runId} waits for nothing (nor do its sub-agent runs)`];
  return p.tree.flatMap((run) => {
    if (run.path.length === 0) return renderPending(runId, run);
    const path = run.path.join('/');
    return [`sub-agent run at path ${path} (${run.workflowId}), decide with --path ${path}:`, ...renderPending(run.workflowId, run)];
  });
}
