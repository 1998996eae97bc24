#!/usr/bin/env node
// Launcher of the `agentctl` bin: runs main.ts through tsx (no build step).
/* eslint-disable @typescript-eslint/no-require-imports */
'use strict';
require('tsx/cjs');
require('./main.ts');
