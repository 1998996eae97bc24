// ESLint flat config. Deterministic code (contracts/, workflows/, agents' definitions and workflows modules) may
// not touch Node builtins, wall time or randomness; floating promises are errors everywhere.
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises',
  'http', 'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers',
  'tls', 'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib',
];

/** What deterministic code may not import: Node builtins, the Node side, and the contracts barrel's values. */
const deterministicImports = {
  paths: nodeBuiltins.flatMap((name) => [
    { name, message: 'deterministic code: no Node builtins (move I/O to an activity)' },
    { name: `node:${name}`, message: 'deterministic code: no Node builtins (move I/O to an activity)' },
  ]),
  patterns: [
    { group: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker', 'openai', '**/activities/**', '**/worker/**', '**/client/**', '**/server/**', 'durable-agents/worker', 'durable-agents/client', 'durable-agents/server', 'durable-agents/testing', '**/examples/*/tools', '**/support/tools'], message: 'deterministic code may import only contracts, workflows and definitions (durable-agents/workflow)' },
    {
      regex: '^(\\.\\./)+contracts(/index|/schemas)?$',
      allowTypeImports: true,
      message: "workflow code imports values from a contract's own module and parses with its builders: the barrel's schema wrappers would be built in every execution (see contracts/schemas.ts)",
    },
  ],
};

/**
 * The floors of workflows/, bottom up (workflows/README.md): a folder imports only from the floors
 * below it (and its own), never from a floor above or beside it, nor from the entry files at the
 * top. The kernel is the floor: clock, failures, termination, scopes, the run context, outputs.
 */
const workflowFloors = [
  ['kernel'],
  ['bundle', 'versioning'],
  ['agents'],
  ['planners'],
  ['state'],
  ['calls', 'human'],
  ['run'],
  ['sessions', 'tenants'],
];
const allFolders = workflowFloors.flat();

/** The no-restricted-imports options of one floor's folder: the deterministic rules, and no import of an upper or side folder. */
function floorImports(folder, floor) {
  const below = new Set([folder, ...workflowFloors.slice(0, floor).flat()]);
  const forbidden = allFolders.filter((f) => !below.has(f));
  const patterns = [...deterministicImports.patterns, { regex: '^(\\.\\./)+(index|create-agent-workflows)$', message: 'workflow modules never import the entry files above them' }];
  // A tool turn sees the run through the interface it declares (calls/calls-run.ts), not the run's whole state.
  if (folder === 'calls') patterns.push({ regex: '^\\.\\./state/run-state$', message: 'workflows/calls/ depends on CallsRun (calls/calls-run.ts), not on RunState' });
  if (forbidden.length) {
    patterns.push({
      regex: `^(\\.\\./)+(${forbidden.join('|')})/`,
      message: `workflows/${folder}/ is on floor ${floor} of workflows/ (${workflowFloors.map((f) => f.join('+')).join(' < ')}): it imports only from the floors below it; move the shared piece down, or depend on an interface`,
    });
  }
  return { ...deterministicImports, patterns };
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.temporal/**', '.tools/**', '.test-build/**', 'bench/results/**', 'test/package/project/**', '*.config.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['contracts/**/*.ts', 'workflows/**/*.ts', 'examples/*/agent.ts', 'examples/*/workflows.ts', 'test/support/agents.ts', 'test/support/faulty-agent.ts', 'test/support/local-llm-agent.ts', 'test/support/quick-llm-agent.ts', 'test/support/workflows.ts', 'test/support/two-agents/*.ts', 'bench/workflows.ts', 'bench/raw-workflows.ts', 'bench/raw-contract.ts'],
    rules: {
      'no-restricted-imports': ['error', deterministicImports],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'use workflowNowMs() from workflows/kernel/clock' },
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'no randomness in deterministic code' },
        { selector: "CallExpression[callee.name='setTimeout']", message: 'use workflow sleep()/condition() timers' },
      ],
    },
  },
  ...workflowFloors.flatMap((folders, floor) =>
    folders.map((folder) => ({
      files: [`workflows/${folder}/**/*.ts`],
      rules: { 'no-restricted-imports': ['error', floorImports(folder, floor)] },
    })),
  ),
);
