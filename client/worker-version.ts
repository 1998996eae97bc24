import type { WorkflowExecutionDescription } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * Which worker version a run is on (Temporal worker versioning), as its description says.
 * Every field is null for a run of an unversioned worker.
 */
export interface RunWorkerVersion {
  /** The Worker Deployment of the version the run's last workflow task completed on. */
  readonly deploymentName: string | null;
  /** The build id of that version. */
  readonly buildId: string | null;
  /** `PINNED`: the run stays on this version; `AUTO_UPGRADE`: it moves to the current version. */
  readonly behavior: 'PINNED' | 'AUTO_UPGRADE' | null;
  /** An operator's override (`temporal workflow update-options`), when one is set. */
  readonly override: { readonly behavior: 'PINNED'; readonly deploymentName: string; readonly buildId: string } | { readonly behavior: 'AUTO_UPGRADE' } | null;
}

const { VersioningBehavior } = temporal.api.enums.v1;

function behaviorName(value: temporal.api.enums.v1.VersioningBehavior | null | undefined): RunWorkerVersion['behavior'] {
  if (value === VersioningBehavior.VERSIONING_BEHAVIOR_PINNED) return 'PINNED';
  if (value === VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE) return 'AUTO_UPGRADE';
  return null;
}

function overrideOf(info: temporal.api.workflow.v1.IWorkflowExecutionVersioningInfo): RunWorkerVersion['override'] {
  const override = info.versioningOverride;
  if (!override) return null;
  const pinned = override.pinned?.version;
  if (pinned?.deploymentName && pinned.buildId) return { behavior: 'PINNED', deploymentName: pinned.deploymentName, buildId: pinned.buildId };
  if (override.autoUpgrade || behaviorName(override.behavior) === 'AUTO_UPGRADE') return { behavior: 'AUTO_UPGRADE' };
  return null;
}

/** The worker version of a run, from its workflow description (`handle.describe()`). */
export function runWorkerVersion(description: Pick<WorkflowExecutionDescription, 'raw'>): RunWorkerVersion {
  const info = description.raw.workflowExecutionInfo?.versioningInfo;
  if (!info) return { deploymentName: null, buildId: null, behavior: null, override: null };
  const version = info.deploymentVersion;
  return {
    deploymentName: version?.deploymentName || null,
    buildId: version?.buildId || null,
    behavior: behaviorName(info.behavior),
    override: overrideOf(info),
  };
}

/** A worker version on one line: `agents.v2 (pinned)`, or `unversioned`. */
export function formatWorkerVersion(v: RunWorkerVersion): string {
  if (!v.buildId) return 'unversioned';
  const behavior = v.behavior ? ` (${v.behavior === 'PINNED' ? 'pinned' : 'auto-upgrade'})` : '';
  const override = v.override ? `, override: ${v.override.behavior === 'PINNED' ? `pinned to ${v.override.deploymentName}.${v.override.buildId}` : 'auto-upgrade'}` : '';
  return `${v.deploymentName}.${v.buildId}${behavior}${override}`;
}
