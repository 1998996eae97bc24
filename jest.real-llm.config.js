/**
 * Opt-in jest config of `npm run test:real-llm` (a real llama-server, see
 * scripts/test-real-llm.sh); never part of `npm test`.
 */
const base = require('./jest.config.js');
const integration = base.projects.find((p) => p.displayName === 'integration');

/** @type {import('jest').Config} */
module.exports = {
  // CPU inference on a small machine: model turns take seconds, loading the model longer.
  testTimeout: 600000,
  projects: [{ ...integration, displayName: 'real-llm', testMatch: ['<rootDir>/test/real-llm/**/*.test.ts'] }],
};
