// A service that only starts and follows runs (a web backend, a script) imports
// durable-agents/client: it must not pay for the worker's native runtime (the Rust core
// bridge of @temporalio/worker). Each entry below is required in a fresh Node process (the
// sources, compiled on the fly by tsx; scripts/package-test.sh checks the packed package the
// same way) and the modules it loaded are listed.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const repo = resolve(__dirname, '../..');
const nativeFree = { client: 'client/index.ts', protocol: 'protocol/index.ts', workflow: 'workflows/index.ts' };

const loaded = new Map<string, string[]>();

/** The modules a fresh Node process has loaded after requiring `source` (as `entry`) and running `then` (one process per pair: each costs about 1.5 s of CPU). */
function loadedModules(source: string, then = ''): string[] {
  const key = JSON.stringify([source, then]);
  const known = loaded.get(key);
  if (known) return known;
  const modules = modulesOfFreshProcess(source, then);
  loaded.set(key, modules);
  return modules;
}

function modulesOfFreshProcess(source: string, then: string): string[] {
  const script = `const entry = require(${JSON.stringify(resolve(repo, source))}); ${then}; process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const output = execFileSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { cwd: repo, encoding: 'utf8' });
  return JSON.parse(output) as string[];
}

describe('entry points without native modules', () => {
  it.each(Object.entries(nativeFree))('durable-agents/%s loads neither @temporalio/worker nor the core bridge', (_entry, source) => {
    const modules = loadedModules(source);
    expect(modules.some((path) => path.includes(resolve(repo, source)))).toBe(true);
    expect(modules.filter((path) => /[\\/]@temporalio[\\/](worker|core-bridge)[\\/]|\.node$/.test(path))).toEqual([]);
  });

  // Nor the OpenTelemetry SDK (about 90 ms at every start of agentctl): a client loads it only to trace.
  it.each(['client', 'protocol'] as const)('durable-agents/%s loads the OpenTelemetry SDK only when tracing is on', (entry) => {
    expect(loadedModules(nativeFree[entry]).filter((path) => /[\\/]@opentelemetry[\\/](sdk-trace-base|exporter-trace-otlp-http|resources)[\\/]/.test(path))).toEqual([]);
  });
});

// A worker loads the OpenTelemetry SDK when it traces, the MCP SDK when it connects to an MCP server
// and openai when it builds a model client or classifies a provider's error: about 120, 120 and 130
// ms of every worker's start (and of every test file's) before.
describe('the worker entry', () => {
  const openTelemetrySdk = /[\\/]@opentelemetry[\\/](sdk-trace-base|exporter-trace-otlp-http|resources|sdk-metrics)[\\/]/;
  const mcpSdk = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]|[\\/]ajv[\\/]/;
  const openai = /[\\/]node_modules[\\/]openai[\\/]/;

  it('loads neither the OpenTelemetry SDK, the MCP SDK nor openai until a worker traces, connects or calls a model', () => {
    const modules = loadedModules('worker/index.ts');
    expect(modules.some((path) => path.endsWith(resolve(repo, 'worker/plugin.ts')))).toBe(true);
    expect(modules.filter((path) => openTelemetrySdk.test(path))).toEqual([]);
    expect(modules.filter((path) => mcpSdk.test(path))).toEqual([]);
    expect(modules.filter((path) => openai.test(path))).toEqual([]);
  });

  it('a plugin with MCP servers configured loads the MCP SDK at its first connection, not before', () => {
    const modules = loadedModules(
      'worker/index.ts',
      "new entry.DurableAgentsPlugin({ agents: [], tools: [], mcpServers: { files: { transport: 'stdio', command: 'node' } } })",
    );
    expect(modules.filter((path) => mcpSdk.test(path))).toEqual([]);
  });

  it('openAIFromEnv loads openai when an endpoint is configured', () => {
    const modules = loadedModules('worker/index.ts', "if (!entry.openAIFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })) throw new Error('no client')");
    expect(modules.filter((path) => openai.test(path)).length).toBeGreaterThan(0);
  });
});
