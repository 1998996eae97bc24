import { jsonByteLength } from './json';

/**
 * Largest payload, in bytes of its JSON encoding, that enters a run: a run's input, a signal or
 * an update argument. The servers we launch refuse larger payloads (Temporal's
 * `limit.blobSize.error`, per payload) and `AgentClient` refuses them before sending.
 *
 * Why a bound at all: a 1 MB update the run refused travelled back inside the refusal, several
 * refusals of one workflow task passed gRPC's 4 MB and the server closed the execution; a 1 MB
 * signal the run refused stayed in its history forever. Why 512 KiB and not lower: the same
 * server limit applies to what a run itself sends (activity inputs, the state it carries across
 * continue-as-new, which holds up to 192 KiB of transcript), so it must leave room for that.
 */
export const maxPayloadBytes = 512 * 1024;

/** Payloads above this size make the server log a warning (`limit.blobSize.warn`). */
export const warnPayloadBytes = 256 * 1024;

/**
 * Why a payload is refused, or undefined when it fits under {@link maxPayloadBytes}.
 *
 * @param what names the payload for the message, e.g. `the intervene update`.
 */
export function payloadTooLarge(what: string, value: unknown): string | undefined {
  const bytes = jsonByteLength(value);
  if (bytes <= maxPayloadBytes) return undefined;
  return `${what} is ${bytes} bytes of JSON; the limit is ${maxPayloadBytes} bytes (512 KiB) per payload`;
}
