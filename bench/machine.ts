import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { findTemporalCli, temporalCliVersion } from '../testing/temporal-cli';

/** Facts about the machine and the software a benchmark ran on. */
export interface MachineFacts {
  readonly cores: number;
  readonly cpuModel: string;
  readonly totalMemoryBytes: number;
  readonly platform: string;
  readonly nodeVersion: string;
  readonly temporalSdkVersion: string;
  readonly temporalCliVersion: string;
  /** Commit of the measured code, and whether the working tree differed from it. */
  readonly codeVersion: string;
}

const packageJsonSchema = z.object({ version: z.string() });

function sdkVersion(): string {
  const path = resolve(__dirname, '..', 'node_modules', '@temporalio', 'worker', 'package.json');
  return packageJsonSchema.parse(JSON.parse(readFileSync(path, 'utf8'))).version;
}

function cliVersion(): string {
  const cli = findTemporalCli();
  if (!cli) return 'unknown (the Temporal SDK downloaded its own CLI)';
  return temporalCliVersion(cli.path);
}

function codeVersion(): string {
  const repo = resolve(__dirname, '..');
  try {
    const git = (args: string[]): string => execFileSync('git', ['--no-optional-locks', '-C', repo, ...args], { encoding: 'utf8' }).trim();
    const head = git(['rev-parse', '--short', 'HEAD']);
    return git(['status', '--porcelain', '--untracked-files=no']) ? `${head} + uncommitted changes` : head;
  } catch {
    return 'unknown (no git)';
  }
}

/** Collects {@link MachineFacts}; call after the dev server started (it provisions the CLI). */
export function machineFacts(): MachineFacts {
  const cpuList = cpus();
  return {
    cores: cpuList.length,
    cpuModel: cpuList[0]?.model ?? 'unknown',
    totalMemoryBytes: totalmem(),
    platform: `${platform()} ${release()}`,
    nodeVersion: process.version,
    temporalSdkVersion: sdkVersion(),
    temporalCliVersion: cliVersion(),
    codeVersion: codeVersion(),
  };
}

/** 1-, 5- and 15-minute load averages: figures from a machine busy with other work are not comparable. */
export function loadAverages(): [number, number, number] {
  const [one = 0, five = 0, fifteen = 0] = loadavg();
  return [one, five, fifteen];
}
