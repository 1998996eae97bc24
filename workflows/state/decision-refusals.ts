import type { ParsedCallDecision } from '../../contracts/hitl';
import { echoed } from '../../contracts/safe-text';

/** A decision the run refuses for a reason a caller may act on: `already_decided`, `stale_digest`. */
export class DecisionRefused extends Error {
  constructor(
    message: string,
    readonly type: 'already_decided' | 'stale_digest',
  ) {
    super(message);
  }
}

/** Who decided a call and when, for a later decision on it. */
export interface DecidedCall {
  readonly decision: ParsedCallDecision['decision'];
  readonly by?: string;
  readonly at: string;
}

/** How many decided calls a run remembers to answer a second decision `already_decided` (this execution's). */
const rememberedDecisions = 200;

/** The calls decided in this execution, oldest first, at most {@link rememberedDecisions}. */
export class DecidedCalls {
  private readonly byId = new Map<string, DecidedCall>();

  remember(decision: ParsedCallDecision, at: string): void {
    this.byId.set(decision.toolCallId, { decision: decision.decision, ...(decision.by !== undefined ? { by: decision.by } : {}), at });
    if (this.byId.size > rememberedDecisions) this.byId.delete(this.byId.keys().next().value as string);
  }

  /** A call asked again under an id decided before (a rewound or re-planned run) is a new request. */
  forget(toolCallId: string): void {
    this.byId.delete(toolCallId);
  }

  /**
   * Why a decision on `decision.toolCallId` is refused before its call is looked at: the call was
   * decided already (naming who and when), or waits with arguments other than those the decision
   * was made on (`digest`: what waits now; naming both digests). Undefined: neither.
   */
  refusal(decision: ParsedCallDecision, digest: string | undefined): DecisionRefused | undefined {
    const id = decision.toolCallId;
    const earlier = this.byId.get(id);
    if (earlier) return new DecisionRefused(`call ${echoed(id)} was decided already: ${earlier.decision}${earlier.by ? ` by ${echoed(earlier.by)}` : ''} at ${earlier.at}`, 'already_decided');
    if (digest !== undefined && decision.digest !== undefined && decision.digest !== digest) {
      return new DecisionRefused(`call ${echoed(id)} waits with other arguments than the ones decided on: the decision is for ${echoed(decision.digest)}, the call waiting is ${digest}; read what waits now and decide again`, 'stale_digest');
    }
    return undefined;
  }
}
