#!/usr/bin/env node
// Launcher of the `agentctl` bin: runs main.ts through tsx (no build step). A child node with
// `--import tsx` gets both the CommonJS and the ESM hooks (commands load some modules lazily
// with import()); stdio and the exit code pass straight through.
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS launcher */
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const result = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'main.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
if (result.error) {
  process.stderr.write(`agentctl: ${result.error.message}\n`);
  process.exit(1);
}
process.exit(result.status ?? 1);
