import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { ParsedArgs } from './args';
import { UsageError } from './exit-codes';

/**
 * The workflow code a command replays or runs: a workflows module, which the command bundles
 * first (a few seconds), or a bundle built before, e.g. the file a deployment's workers load
 * (`workflowBundle: { codePath }`), which it loads as it is. Replaying recorded histories against
 * the very bundle about to be deployed checks what will run, and saves the bundling per command.
 */
export type WorkflowCode = { readonly module: string } | { readonly bundle: string; readonly code: string };

/** The options of a command that takes workflow code (replay, eval). */
export const workflowCodeOptions = {
  workflows: { type: 'string', value: 'PATH', description: 'your workflows module, bundled first (default $DURABLE_AGENTS_WORKFLOWS)' },
  'workflow-bundle': { type: 'string', value: 'FILE', description: 'a workflow bundle built before (the code bundleAgentWorkflows returns, written to a file), loaded as it is' },
} as const;

/**
 * Reads `--workflows` / `--workflow-bundle` (one of them; else $DURABLE_AGENTS_WORKFLOWS).
 *
 * @throws UsageError when both or neither are given, the file does not exist, or a
 *   `--workflow-bundle` file is not a workflow bundle.
 */
export function workflowCodeOf(args: ParsedArgs, command: string, env: NodeJS.ProcessEnv): WorkflowCode {
  const module = args.string('workflows');
  const bundle = args.string('workflow-bundle');
  if (module !== undefined && bundle !== undefined) {
    throw new UsageError('--workflows and --workflow-bundle: give one (a workflows module to bundle, or a bundle built before)');
  }
  if (bundle !== undefined) return workflowBundleFile(bundle);
  return { module: workflowsModule(module, command, env) };
}

/** The workflows module to bundle: `--workflows`, else $DURABLE_AGENTS_WORKFLOWS; it must exist. */
export function workflowsModule(option: string | undefined, command: string, env: NodeJS.ProcessEnv): string {
  const path = option ?? env.DURABLE_AGENTS_WORKFLOWS;
  if (!path) throw new UsageError(`${command} needs your workflows module: --workflows PATH (or DURABLE_AGENTS_WORKFLOWS)`);
  const resolved = resolve(path);
  if (!existsSync(resolved)) throw new UsageError(`--workflows ${path}: no such file`);
  return resolved;
}

/**
 * A bundle file, read once and checked to be one: every bundle the SDK's bundler builds routes its
 * module cache through `globalThis.__webpack_module_cache__` (the SDK's own check when it loads
 * one), and a compiled workflows module (`dist/workflows.js`) does not.
 */
function workflowBundleFile(path: string): WorkflowCode {
  const resolved = resolve(path);
  if (!existsSync(resolved)) throw new UsageError(`--workflow-bundle ${path}: no such file`);
  const code = readFileSync(resolved, 'utf8');
  if (!code.includes('globalThis.__webpack_module_cache__')) {
    throw new UsageError(`--workflow-bundle ${path}: not a workflow bundle (the code bundleAgentWorkflows returns, written to a file); for a workflows module use --workflows`);
  }
  return { bundle: resolved, code };
}

/** How a progress line names the code: the path, and whether it is bundled first. */
export function describeWorkflowCode(code: WorkflowCode): string {
  return 'bundle' in code ? `the bundle ${code.bundle}` : `${code.module} (building the workflow bundle first)`;
}

/** The worker's `workflowBundle` for the code: the bundle as read, or the module bundled now. */
export async function workflowBundleOf(code: WorkflowCode): Promise<WorkflowBundleOption> {
  if ('bundle' in code) return { code: code.code };
  const { bundleAgentWorkflows } = await import('../worker/create-worker');
  return bundleAgentWorkflows(code.module);
}
