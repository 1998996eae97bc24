// A service that only starts and follows runs (a web backend, a script) imports
// durable-agents/client: it must not pay for the worker's native runtime (the Rust core
// bridge of @temporalio/worker). Each entry below is required in a fresh Node process (the
// sources, compiled on the fly by tsx; scripts/package-test.sh checks the packed package the
// same way) and the modules it loaded are listed.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const repo = resolve(__dirname, '../..');
const nativeFree = { client: 'client/index.ts', protocol: 'protocol/index.ts', workflow: 'workflows/index.ts' };

function loadedModules(source: string): string[] {
  const script = `require(${JSON.stringify(resolve(repo, source))}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
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

// A worker loads the OpenTelemetry SDK when it traces and the MCP client when it connects to an MCP
// server: about 120 and 80 ms of every worker's start (and of every test file's) before.
describe('the worker entry', () => {
  it('loads neither the OpenTelemetry SDK nor the MCP client until a worker traces or connects', () => {
    const modules = loadedModules('worker/index.ts');
    expect(modules.some((path) => path.endsWith(resolve(repo, 'worker/plugin.ts')))).toBe(true);
    expect(modules.filter((path) => /[\\/]@opentelemetry[\\/](sdk-trace-base|exporter-trace-otlp-http|resources|sdk-metrics)[\\/]/.test(path))).toEqual([]);
    expect(modules.filter((path) => /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]cjs[\\/]client[\\/]index\.js$|[\\/]ajv[\\/]/.test(path))).toEqual([]);
  });
});
