import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { z } from 'zod';
import { nameVariable } from '../config/temporal-env';

/**
 * How runs started on a worker version move between versions (Temporal's versioning behavior):
 * - `PINNED`: a run stays on the version it started on until it closes; a new version only
 *   gets new runs. Nothing the run replays ever meets code it was not recorded with.
 * - `AUTO_UPGRADE`: a run moves to the current version at its next workflow task; safe only when
 *   every change to the commands an open run emits goes through `patched()`.
 */
export type AgentVersioningBehavior = 'PINNED' | 'AUTO_UPGRADE';

/**
 * Default behavior of agent runs: `PINNED`. Runs wait for humans for days; pinned, a run that
 * started on one version finishes on it, and a release needs no `patched()` for runs it will
 * never meet.
 */
export const defaultAgentVersioningBehavior: AgentVersioningBehavior = 'PINNED';

/** A worker's place in a Temporal Worker Deployment (worker versioning). */
export interface AgentDeployment {
  /** The deployment: one per worker fleet (usually the service name), the same for every version. */
  readonly name: string;
  /** This worker's version in it: a build id (a git sha, an image tag); new code, new build id. */
  readonly buildId: string;
  /** How runs move between versions. Default {@link defaultAgentVersioningBehavior} (`PINNED`). */
  readonly defaultBehavior?: AgentVersioningBehavior;
}

const behaviors = ['PINNED', 'AUTO_UPGRADE'] as const;

/** Build ids Temporal reserves for unversioned workers. */
const reservedBuildIds = new Set(['__unversioned__']);

function deploymentSchema(nameLabel: string, buildIdLabel: string, behaviorLabel: string) {
  return z.object({
    name: nameVariable(nameLabel).refine((v) => !v.includes('.'), {
      message: `${nameLabel} must not contain "." (Temporal writes a version as <deployment>.<build id>)`,
    }),
    buildId: nameVariable(buildIdLabel).refine((v) => !reservedBuildIds.has(v), { message: `${buildIdLabel} "__unversioned__" is reserved by Temporal` }),
    defaultBehavior: z
      .string()
      .trim()
      .toUpperCase()
      .refine((v): v is AgentVersioningBehavior => (behaviors as readonly string[]).includes(v), { message: `${behaviorLabel} must be PINNED or AUTO_UPGRADE` })
      .optional(),
  });
}

const optionSchema = deploymentSchema('deployment.name', 'deployment.buildId', 'deployment.defaultBehavior');
const envSchema = deploymentSchema('DURABLE_AGENTS_DEPLOYMENT_NAME', 'DURABLE_AGENTS_BUILD_ID', 'DURABLE_AGENTS_VERSIONING_BEHAVIOR');

function checked(schema: typeof optionSchema, raw: Record<string, unknown>, what: string): Required<AgentDeployment> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid ${what}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  const behavior = parsed.data.defaultBehavior as AgentVersioningBehavior | undefined;
  return { name: parsed.data.name, buildId: parsed.data.buildId, defaultBehavior: behavior ?? defaultAgentVersioningBehavior };
}

/**
 * Validates a deployment option and fills in the default behavior.
 *
 * @throws Error naming the field that is wrong (empty, whitespace, a `.` in the name, a reserved
 *   build id, an unknown behavior).
 */
export function checkDeployment(deployment: AgentDeployment): Required<AgentDeployment> {
  return checked(optionSchema, { ...deployment }, 'worker deployment');
}

/**
 * The worker's deployment from the environment, or undefined when it is not versioned:
 * `DURABLE_AGENTS_DEPLOYMENT_NAME` and `DURABLE_AGENTS_BUILD_ID` (both or neither), and
 * optionally `DURABLE_AGENTS_VERSIONING_BEHAVIOR` (`PINNED`, the default, or `AUTO_UPGRADE`).
 * Empty variables count as unset.
 *
 * @throws Error naming each bad variable, or the missing half of the pair.
 * @example
 * // DURABLE_AGENTS_DEPLOYMENT_NAME=agents DURABLE_AGENTS_BUILD_ID=2026-11-23.1
 * deploymentFromEnv(); // { name: 'agents', buildId: '2026-11-23.1', defaultBehavior: 'PINNED' }
 */
export function deploymentFromEnv(env: NodeJS.ProcessEnv = process.env): Required<AgentDeployment> | undefined {
  const value = (key: string): string | undefined => (env[key]?.trim() ? env[key] : undefined);
  const name = value('DURABLE_AGENTS_DEPLOYMENT_NAME');
  const buildId = value('DURABLE_AGENTS_BUILD_ID');
  const behavior = value('DURABLE_AGENTS_VERSIONING_BEHAVIOR');
  if (name === undefined && buildId === undefined) {
    if (behavior !== undefined) throw new Error('DURABLE_AGENTS_VERSIONING_BEHAVIOR is set but the worker is not versioned: set DURABLE_AGENTS_DEPLOYMENT_NAME and DURABLE_AGENTS_BUILD_ID too');
    return undefined;
  }
  if (name === undefined || buildId === undefined) {
    throw new Error(`set both DURABLE_AGENTS_DEPLOYMENT_NAME and DURABLE_AGENTS_BUILD_ID, or neither: ${name === undefined ? 'DURABLE_AGENTS_DEPLOYMENT_NAME' : 'DURABLE_AGENTS_BUILD_ID'} is missing`);
  }
  return checked(envSchema, { name, buildId, ...(behavior !== undefined ? { defaultBehavior: behavior } : {}) }, 'worker deployment settings');
}

/**
 * Temporal worker options of a deployment: worker versioning on, this build id, and the default
 * behavior of the runs this worker starts.
 *
 * @throws Error as {@link checkDeployment}.
 */
export function workerDeploymentOptions(deployment: AgentDeployment): WorkerDeploymentOptions {
  const d = checkDeployment(deployment);
  return { version: { deploymentName: d.name, buildId: d.buildId }, useWorkerVersioning: true, defaultVersioningBehavior: d.defaultBehavior };
}
