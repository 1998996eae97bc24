import { useState } from 'preact/hooks';
import { api } from '../api';
import type { SessionQueueView } from '../types';
import { useAction } from '../use-api';
import { ErrorBox } from './error-box';

type Queued = SessionQueueView[number];

/**
 * The messages that wait for their runs, next first, each with its actions (drop, move to the
 * front, edit) for people who may operate: each a `POST /api/sessions/:id/queue` (editQueue),
 * whose refusal (the message ran meanwhile) is shown as the API says it.
 */
export function SessionQueue({ sessionPath, queue, canEdit, onChange }: { sessionPath: string; queue: SessionQueueView; canEdit: boolean; onChange: () => void }) {
  const action = useAction();
  const [editing, setEditing] = useState<string>();
  const [draft, setDraft] = useState('');
  const edit = (body: object) =>
    void action.run(async () => {
      await api(`${sessionPath}/queue`, body);
      setEditing(undefined);
      onChange();
    });
  const row = (message: Queued) => {
    const id = message.messageId;
    return (
      <li key={message.runNumber} class="card" data-message-id={id ?? ''}>
        <div>
          <b>#{message.runNumber}</b> <code>{id}</code>
        </div>
        {editing === id ? (
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              edit({ action: 'edit', messageId: id, content: draft.trim() });
            }}
          >
            <input name="content" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
            <button type="submit" disabled={action.busy || !draft.trim()}>
              Save
            </button>
            <button type="button" class="secondary" onClick={() => setEditing(undefined)}>
              Cancel
            </button>
          </form>
        ) : (
          <p class="content">{message.content}</p>
        )}
        {canEdit && id !== undefined && editing !== id && (
          <div class="controls">
            <button class="secondary" disabled={action.busy} onClick={() => edit({ action: 'front', messageId: id })}>
              Move to front
            </button>
            <button
              class="secondary"
              disabled={action.busy}
              onClick={() => {
                setDraft(message.content);
                setEditing(id);
              }}
            >
              Edit
            </button>
            <button class="danger" disabled={action.busy} onClick={() => edit({ action: 'drop', messageId: id, reason: 'dropped in the dashboard' })}>
              Drop
            </button>
          </div>
        )}
      </li>
    );
  };
  return (
    <section class="panel" data-testid="queue">
      <h2>Queue ({queue.length})</h2>
      {queue.length === 0 ? <p class="meta">No message waits.</p> : <ol class="queue">{queue.map(row)}</ol>}
      <ErrorBox error={action.error} />
    </section>
  );
}
