import type { CallDecision } from '../../contracts/hitl';
import { quoted } from '../../contracts/safe-text';
import type { ApprovalLinkClaims } from './link-token';

/** The fields of the link page's form. */
export interface LinkForm {
  /** `approve`, `reject`, `edit` or `replace`. */
  readonly action?: string;
  /** `yes` with `approve`: approve the tool for the rest of the run. */
  readonly always?: string;
  /** The tool that replaces the call (`replace`). */
  readonly name?: string;
  /** Who answers: required when the link names several people or a role. */
  readonly approver?: string;
  /** The reason of a rejection. */
  readonly reason?: string;
  /** The edited arguments, JSON. */
  readonly args?: string;
}

/** Why a form is refused before the run is asked. */
export interface LinkFormRefusal {
  readonly type: 'invalid_input' | 'foreign_approver';
  readonly message: string;
}

const maxReasonChars = 2000;

/** Who answers, as the decision's `by` records it; or why the form's approver may not answer this link. */
export function linkApprover(claims: ApprovalLinkClaims, given: string | undefined): { readonly by: string } | LinkFormRefusal {
  const name = given?.trim() ?? '';
  const { approver } = claims;
  if ('role' in approver) {
    if (!name) return { type: 'invalid_input', message: `approver: give your name (the link is for anyone answering as ${quoted(approver.role, 100)})` };
    if (name.length > 100) return { type: 'invalid_input', message: `approver: at most 100 characters; got ${name.length}` };
    return { by: `${name} (${approver.role})` };
  }
  const listed = approver.names.map((n) => quoted(n, 100)).join(', ');
  if (!name) {
    if (approver.names.length === 1) return { by: approver.names[0] ?? '' };
    return { type: 'invalid_input', message: `approver: say who answers; the link is for ${listed}` };
  }
  if (!approver.names.includes(name)) return { type: 'foreign_approver', message: `${quoted(name, 100)} may not answer this link; it is for ${listed}` };
  return { by: name };
}

/**
 * The decision a form of the link page makes: as the named approver, bound to the link's digest
 * (so the run refuses it when the call waits with other arguments now).
 */
export function linkDecision(claims: ApprovalLinkClaims, form: LinkForm): { readonly decision: CallDecision } | LinkFormRefusal {
  const who = linkApprover(claims, form.approver);
  if ('type' in who) return who;
  const common = { toolCallId: claims.toolCallId, by: who.by, digest: claims.digest };
  switch (form.action) {
    case 'approve':
      return { decision: { decision: 'approve', ...common, ...(form.always === 'yes' ? { always: true } : {}) } };
    case 'reject': {
      const reason = form.reason?.trim() ?? '';
      if (reason.length > maxReasonChars) return { type: 'invalid_input', message: `reason: at most ${maxReasonChars} characters; got ${reason.length}` };
      return { decision: { decision: 'reject', ...common, reason: reason || `rejected by ${who.by} from an approval link` } };
    }
    case 'edit':
    case 'replace': {
      let args: unknown;
      try {
        args = JSON.parse(form.args ?? '');
      } catch (err) {
        return { type: 'invalid_input', message: `args: not JSON (${err instanceof Error ? quoted(err.message, 100) : 'unreadable'}); give the edited arguments as a JSON value` };
      }
      if (form.action === 'edit') return { decision: { decision: 'edit', ...common, args } };
      const name = form.name?.trim() ?? '';
      if (!name || name.length > 200) return { type: 'invalid_input', message: `name: give the tool that replaces the call (1 to 200 characters)` };
      return { decision: { decision: 'replace', ...common, name, args } };
    }
    default:
      return { type: 'invalid_input', message: `action: expected approve, reject, edit or replace; got ${form.action === undefined ? 'none' : quoted(form.action, 50)}` };
  }
}
