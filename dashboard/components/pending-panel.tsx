import { useState } from 'preact/hooks';
import { api, runPath } from '../api';
import { linkTo } from '../router';
import type { AwaitAnswer, CallDecision, PendingInputs, RunPending, TreePending } from '../types';
import { useAction } from '../use-api';
import { ErrorBox } from './error-box';

type Approval = PendingInputs['approvals'][number];
type AwaitItem = NonNullable<PendingInputs['await']>['items'][number];

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** One call waiting for confirmation: approve, reject with a reason, or run with edited arguments. */
export function ApprovalCard({ workflowId, approval, disabled, onDone }: { workflowId: string; approval: Approval; disabled: boolean; onDone: () => void }) {
  const action = useAction();
  const busy = action.busy || disabled;
  const [reason, setReason] = useState('');
  const [editing, setEditing] = useState(false);
  const [args, setArgs] = useState(() => JSON.stringify(approval.args, null, 2));
  // Every decision carries the digest of the arguments shown: the run refuses it if they changed since.
  const decide = (decision: () => CallDecision) =>
    void action.run(async () => {
      await api(runPath(workflowId, '/decisions'), { ...decision(), ...(approval.digest ? { digest: approval.digest } : {}) });
      onDone();
    });
  const id = approval.toolCallId;
  return (
    <div class="card approval" data-tool-call={id}>
      <div>
        <b>{approval.name}</b> <code>{id}</code> <span class="hint">turn {approval.turn}</span>
        {approval.digest ? (
          <span class="hint digest" title={approval.digest}>
            {' '}
            {approval.digest.slice(0, 19)}…
          </span>
        ) : null}
      </div>
      {editing ? (
        <textarea name="args" rows={6} value={args} onInput={(e) => setArgs(e.currentTarget.value)} />
      ) : (
        <pre class="json">{JSON.stringify(approval.args, null, 2)}</pre>
      )}
      <div class="actions">
        {editing ? (
          <>
            <button disabled={busy} onClick={() => decide(() => ({ decision: 'edit', toolCallId: id, args: parseJson(args, 'the arguments') as never }))}>
              Run with these arguments
            </button>
            <button class="secondary" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </>
        ) : (
          <>
            <button disabled={busy} onClick={() => decide(() => ({ decision: 'approve', toolCallId: id }))}>
              Approve
            </button>
            <button class="secondary" disabled={disabled} onClick={() => setEditing(true)}>
              Edit
            </button>
            <input name="reason" placeholder="reason (optional)" disabled={disabled} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
            <button class="danger" disabled={busy} onClick={() => decide(() => ({ decision: 'reject', toolCallId: id, ...(reason.trim() ? { reason: reason.trim() } : {}) }))}>
              Reject
            </button>
          </>
        )}
      </div>
      <ErrorBox error={action.error} />
    </div>
  );
}

interface Question {
  id: string;
  prompt: string;
  options: { id: string; label: string }[];
  allowMultiple?: boolean;
}

/** The answer form of one await item, by kind. */
export function AwaitCard({ workflowId, item, disabled, onDone }: { workflowId: string; item: AwaitItem; disabled: boolean; onDone: () => void }) {
  const action = useAction();
  const busy = action.busy || disabled;
  const [text, setText] = useState('');
  const [choices, setChoices] = useState<Record<string, string[]>>({});
  const detail = item.item as { question?: string; title?: string; questions?: Question[]; calls?: { toolCallId: string; name: string; args: unknown }[] };
  const [results, setResults] = useState(() => JSON.stringify((detail.calls ?? []).map((c) => ({ toolCallId: c.toolCallId, result: null })), null, 2));
  const send = (answer: () => AwaitAnswer) =>
    void action.run(async () => {
      await api(runPath(workflowId, '/answers'), answer());
      onDone();
    });
  if (item.answered) return <div class="card hint">{item.id}: answered</div>;
  return (
    <div class="card await" data-item={item.id}>
      {item.kind === 'clarification' && (
        <>
          <p>{detail.question}</p>
          <textarea name="answer" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          <button disabled={busy || !text.trim()} onClick={() => send(() => ({ kind: 'clarification', itemId: item.id, answer: text.trim() }))}>
            Answer
          </button>
        </>
      )}
      {item.kind === 'questions' && (
        <>
          {detail.title && <p>{detail.title}</p>}
          {(detail.questions ?? []).map((q) => (
            <fieldset key={q.id}>
              <legend>{q.prompt}</legend>
              {q.options.map((o) => (
                <label key={o.id}>
                  <input
                    type={q.allowMultiple ? 'checkbox' : 'radio'}
                    name={`${item.id}-${q.id}`}
                    checked={choices[q.id]?.includes(o.id) ?? false}
                    onChange={(e) => {
                      const on = e.currentTarget.checked;
                      const now = choices[q.id] ?? [];
                      setChoices({ ...choices, [q.id]: q.allowMultiple ? (on ? [...now, o.id] : now.filter((x) => x !== o.id)) : [o.id] });
                    }}
                  />{' '}
                  {o.label}
                </label>
              ))}
            </fieldset>
          ))}
          <button disabled={busy} onClick={() => send(() => ({ kind: 'questions', itemId: item.id, answers: choices }))}>
            Answer
          </button>
        </>
      )}
      {item.kind === 'external_tools' && (
        <>
          <p>Results of {(detail.calls ?? []).map((c) => c.name).join(', ')} (JSON: toolCallId, result or error)</p>
          <textarea name="results" rows={6} value={results} onInput={(e) => setResults(e.currentTarget.value)} />
          <button disabled={busy} onClick={() => send(() => ({ kind: 'external_tools', itemId: item.id, results: parseJson(results, 'the results') as never }))}>
            Send results
          </button>
        </>
      )}
      <ErrorBox error={action.error} />
    </div>
  );
}

/** Where a sub-agent run is: its path of call ids from the run asked about, as the page shows it. */
export function pathLabel(path: readonly string[]): string {
  return path.map((id) => `/${id}`).join('');
}

/**
 * What one run of a tree waits on, answered on that run itself; a sub-agent run under its path
 * (`titled` false where the path is shown already, as in the tree of sub-agent runs).
 */
export function TreeEntry({ entry, canAnswer, onChange, testId, titled = true }: { entry: TreePending; canAnswer: boolean; onChange: () => void; testId: string; titled?: boolean }) {
  return (
    <div data-testid={testId} data-path={pathLabel(entry.path)}>
      {titled && entry.path.length > 0 && (
        <h3>
          Sub-agent <a href={linkTo({ view: 'run', id: entry.workflowId })}>{pathLabel(entry.path)}</a>
        </h3>
      )}
      {entry.approvals.map((a) => (
        <ApprovalCard key={a.toolCallId} disabled={!canAnswer} workflowId={entry.workflowId} approval={a} onDone={onChange} />
      ))}
      {entry.await?.items.map((item) => <AwaitCard key={item.id} disabled={!canAnswer} workflowId={entry.workflowId} item={item} onDone={onChange} />)}
    </div>
  );
}

/** Scrolls to the page's tree of sub-agent runs (not a route: the hash names the page's run). */
function toSubAgentRuns(event: MouseEvent): void {
  event.preventDefault();
  document.getElementById('sub-agent-runs')?.scrollIntoView();
}

/** Whether a run of a tree waits for a person. */
export function waitsForPerson(entry: PendingInputs): boolean {
  return entry.approvals.length > 0 || !!entry.await;
}

/**
 * What the run and its sub-agent runs wait on from humans (GET /api/runs/:id/pending, its
 * `tree`: this run first), with the forms to answer: a sub-agent run's items under its path,
 * answered on that run. With `subAgentsBelow`, the page shows those in its tree of sub-agent
 * runs instead, and this panel only says how many wait there.
 */
export function PendingPanel({ pending, canAnswer, onChange, subAgentsBelow = false }: { pending?: RunPending | undefined; canAnswer: boolean; onChange: () => void; subAgentsBelow?: boolean }) {
  const waiting = (pending?.tree ?? []).filter(waitsForPerson);
  if (waiting.length === 0) return null;
  const shown = subAgentsBelow ? waiting.filter((entry) => entry.path.length === 0) : waiting;
  const below = waiting.length - shown.length;
  return (
    <section class="panel pending" data-testid="pending">
      <h2>{canAnswer ? 'Waiting for you' : 'Waiting for an operator'}</h2>
      {!canAnswer && <p class="hint">Approvals and answers need the operator role.</p>}
      {shown.map((entry) => (
        <TreeEntry key={entry.workflowId} entry={entry} canAnswer={canAnswer} onChange={onChange} testId={entry.path.length > 0 ? 'sub-agent-pending' : 'own-pending'} />
      ))}
      {below > 0 && (
        <p data-testid="sub-agents-waiting">
          {below === 1 ? '1 sub-agent run waits' : `${below} sub-agent runs wait`} for {canAnswer ? 'you: answer' : 'an operator: see'} {below === 1 ? 'it' : 'them'} in <a href="#sub-agent-runs" onClick={toSubAgentRuns}>
            Sub-agent runs
          </a>{' '}
          below.
        </p>
      )}
    </section>
  );
}
