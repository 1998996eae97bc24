import { readFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { findTemporalCli, temporalCliVersion } from '../worker/temporal-cli';

/** Facts about the machine and the software a benchmark ran on. */
export interface MachineFacts {
  readonly cores: number;
  readonly cpuModel: string;
  readonly totalMemoryBytes: number;
  readonly platform: string;
  readonly nodeVersion: string;
  readonly temporalSdkVersion: string;
  readonly temporalCliVersion: string;
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
  };
}
