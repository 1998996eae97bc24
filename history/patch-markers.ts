import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';

/**
 * The patch ids a history event records: the ids of a `patched()` marker (a patch or a release
 * baseline), none for any other event or for marker data that cannot be read.
 */
export function patchMarkerIds(event: temporal.api.history.v1.IHistoryEvent): string[] {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_patch') return [];
  return Object.values(marker.details ?? {}).flatMap((payloads) =>
    (payloads.payloads ?? []).flatMap((payload) => {
      try {
        const value = defaultPayloadConverter.fromPayload<unknown>(payload as temporal.api.common.v1.IPayload);
        return typeof value === 'object' && value !== null && 'id' in value && typeof value.id === 'string' ? [value.id] : [];
      } catch {
        return [];
      }
    }),
  );
}
