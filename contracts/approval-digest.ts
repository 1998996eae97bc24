import { canonicalJson } from './canonical-json';
import { sha256Hex } from './sha256';

/**
 * What an approval is bound to: `sha256:<hex>` of the tool's name and its arguments as canonical
 * JSON. The run shows it with each approval request (the `approval_requested` event, the pending
 * inputs); a decision that carries it is refused, naming both digests, when the call waiting
 * under that id has other arguments now (a rewound or re-planned run asks again under the same id).
 */
export function approvalDigest(name: string, args: unknown): string {
  return `sha256:${sha256Hex(canonicalJson({ args: args ?? null, name }))}`;
}
