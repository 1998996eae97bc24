/**
 * Jest projects: `unit` needs no server; `integration` runs against one real Temporal dev server
 * that global setup starts and global teardown stops (files that restart a server start their own).
 */
const { availableParallelism } = require('node:os');

const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
// Node's, plus the removal of the process-wide hooks a file leaves behind (see the file).
const testEnvironment = '<rootDir>/test/support/test-environment.ts';
// Inside this repository the examples and tests import the library by its entry points, as users
// do; these map them to the sources (the published package maps them to dist/).
const moduleNameMapper = {
  '^durable-agents/workflow$': '<rootDir>/workflows/index.ts',
  '^durable-agents/worker$': '<rootDir>/worker/index.ts',
  '^durable-agents/client$': '<rootDir>/client/index.ts',
  '^durable-agents/testing$': '<rootDir>/testing/index.ts',
  '^durable-agents/server$': '<rootDir>/server/index.ts',
  '^durable-agents/protocol$': '<rootDir>/protocol/index.ts',
};

/** @type {import('jest').Config} */
module.exports = {
  // Four test files at a time even on two cores: integration files spend most of their time
  // waiting on the server, timers and child processes (measured on two cores, a dozen integration
  // files: two workers 149 s against 338 s in band; three 58 s against two 76 s; the whole suite
  // in CI, with workflows run in-process by the test workers: four 349 s against three 422 s).
  maxWorkers: Math.max(4, availableParallelism() - 1),
  // In a fresh clone, the files known to take longest start first (see the sequencer).
  testSequencer: '<rootDir>/test/support/test-sequencer.mjs',
  // Integration tests wait on real servers and worker restarts; unit tests finish long before.
  testTimeout: 120000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment,
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/examples/**/*.unit.test.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment,
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/replay/**/*.test.ts', '<rootDir>/examples/**/*.integration.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
