/** Jest projects: `unit` needs no server; `integration` starts a real Temporal dev server per file. */
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/replay/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      testTimeout: 120000,
    },
  ],
};
