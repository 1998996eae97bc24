import type { JsonValue } from '../../contracts/json';
import type { ApprovalLinkClaims } from './link-token';

/**
 * The link pages may load nothing, run no script, post their form only to their own address and
 * show in no frame: the page is server-rendered HTML with one inline style sheet.
 */
export const linkPageHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // The token is in the address: no other site learns it from a Referer, no cache keeps the page.
  // (Not `no-referrer`: a browser then sends `Origin: null` with the page's own form.)
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/** Text made safe inside HTML elements and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const style = `body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d2433}
h1{font-size:1.3rem}pre{background:#f3f5f8;padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
dt{font-weight:600}dd{margin:0 0 .5rem}textarea,select,input{font:inherit;width:100%;box-sizing:border-box;margin:.25rem 0 .75rem}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}.refused{color:#9b1c1c}.done{color:#1c6b3a}`;

function document(title: string, body: string, refusal?: string): string {
  const data = refusal ? ` data-refusal="${escapeHtml(refusal)}"` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${style}</style></head><body${data}><main>${body}</main></body></html>`;
}

/** What the page shows of the call waiting for a decision. */
export interface WaitingCall {
  readonly name: string;
  readonly args: JsonValue;
}

function approverField(claims: ApprovalLinkClaims): string {
  const { approver } = claims;
  if ('role' in approver) {
    return `<label for="approver">Your name (answering as ${escapeHtml(approver.role)})</label><input id="approver" name="approver" required maxlength="100" autocomplete="name">`;
  }
  if (approver.names.length === 1) return `<p>You answer as <strong>${escapeHtml(approver.names[0] ?? '')}</strong>.</p>`;
  const options = approver.names.map((n) => `<option value="${escapeHtml(n)}">${escapeHtml(n)}</option>`).join('');
  return `<label for="approver">Who answers</label><select id="approver" name="approver" required><option value="">choose…</option>${options}</select>`;
}

/**
 * The link's page: the run, the call and its arguments (as text: whatever they contain is
 * escaped), and one form that approves (for the rest of the run, too), rejects (with a reason),
 * approves edited arguments, or runs another tool instead.
 * The form posts to the page's own address; nothing is decided by opening it.
 */
export function approvalPage(claims: ApprovalLinkClaims, call: WaitingCall): string {
  const args = JSON.stringify(call.args, null, 2);
  const body = `<h1>Approve ${escapeHtml(call.name)}?</h1>
<dl><dt>Run</dt><dd data-testid="run">${escapeHtml(claims.run)}</dd>
<dt>Call</dt><dd data-testid="call">${escapeHtml(call.name)} (${escapeHtml(claims.toolCallId)})</dd>
<dt>Arguments</dt><dd><pre data-testid="args">${escapeHtml(args)}</pre></dd>
<dt>Digest</dt><dd><code>${escapeHtml(claims.digest)}</code></dd>
<dt>Link valid until</dt><dd>${new Date(claims.exp * 1000).toISOString()}</dd></dl>
<form method="post">${approverField(claims)}
<label><input type="checkbox" name="always" value="yes" style="width:auto"> and approve ${escapeHtml(call.name)} for the rest of this run (stop asking)</label>
<button type="submit" name="action" value="approve">Approve</button>
<label for="reason">Reason (for a rejection)</label><textarea id="reason" name="reason" rows="2" maxlength="2000"></textarea>
<button type="submit" name="action" value="reject">Reject</button>
<label for="args">Arguments (edit them, then approve the edited call)</label><textarea id="args" name="args" rows="8">${escapeHtml(args)}</textarea>
<button type="submit" name="action" value="edit">Approve with these arguments</button>
<label for="name">Or another tool, run with the arguments above instead</label><input id="name" name="name" maxlength="200" value="${escapeHtml(call.name)}">
<button type="submit" name="action" value="replace">Run this tool instead</button></form>`;
  return document(`Approve ${call.name}?`, body);
}

/** The page after a decision the run took. */
export function decidedPage(claims: ApprovalLinkClaims, decision: string, by: string): string {
  const verb = decision === 'reject' ? 'Rejected' : decision === 'edit' ? 'Approved with edited arguments' : decision === 'replace' ? 'Replaced with another call' : decision === 'always' ? 'Approved for the rest of the run' : 'Approved';
  const body = `<h1 class="done">${escapeHtml(verb)}</h1><p data-testid="outcome">Call ${escapeHtml(claims.toolCallId)} of run ${escapeHtml(claims.run)} was ${escapeHtml(verb.toLowerCase())} by ${escapeHtml(by)}. This link cannot be used again.</p>`;
  return document(verb, body);
}

/** A refusal: what was wrong, and what to do. `refusal` is its type, for machines (`data-refusal`). */
export function refusalPage(title: string, message: string, refusal: string): string {
  return document(title, `<h1 class="refused">${escapeHtml(title)}</h1><p data-testid="refusal">${escapeHtml(message)}</p>`, refusal);
}
