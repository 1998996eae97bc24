import type { JsonValue } from './json';

/** Activity type that tells people a call waits for their decision (reserved; see reservedActivityNames). */
export const notifyApprovalActivityName = 'approvals.notify';

/** What the run tells the notifier when a call starts to wait for a decision. */
export interface ApprovalNotice {
  readonly workflowId: string;
  readonly agent: string;
  readonly toolCallId: string;
  readonly name: string;
  readonly args: JsonValue;
  /** The approval digest the call waits with (`sha256:<hex>`): a link is bound to it. */
  readonly digest: string;
  readonly turn: number;
}

/** What the notifier answers once someone took the notice. */
export interface ApprovalNoticeDelivery {
  /** Which notifier delivered it, for people (`webhook <origin>`: never the webhook's secret path). */
  readonly notifier: string;
  /** The attempt that delivered it (1: the first). */
  readonly attempt: number;
  /** The id of the key that signed the notice's body, when it was signed. */
  readonly keyId?: string;
  /** The HTTP status the receiver answered. */
  readonly status: number;
  /** When the link in the notice expires (ISO 8601). */
  readonly linkExpiresAt: string;
}
