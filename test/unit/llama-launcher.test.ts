/**
 * The launcher of the real-model test's llama-server (test/real-llm/llama-launcher.ts), with
 * stand-in processes: its health wait fails at once when the process dies of a signal or exits,
 * fails at its deadline when the process never answers, and each failure carries the process's
 * output. The per-test timeouts bound "at once": far below the health deadlines.
 */
import { launchServer } from '../real-llm/llama-launcher';

const aMinute = 60_000;

describe('launchServer', () => {
  it('fails the health wait at once, naming the signal and with the output, when the process is killed by a signal', async () => {
    const launching = launchServer({
      name: 'fake-llama-server',
      command: 'sh',
      args: () => ['-c', 'echo "loading model" >&2; echo "llama threadpool init, n_threads = 2" >&2; kill -ILL $$'],
      healthyWithinMs: aMinute,
    });
    await expect(launching).rejects.toThrow(/fake-llama-server was killed by SIGILL .*before it was healthy/);
    await expect(launching).rejects.toThrow(/loading model\n.*llama threadpool init, n_threads = 2/);
  }, 10_000);

  it('fails the health wait at once, with the exit code and the output, when the process exits', async () => {
    const launching = launchServer({
      command: 'sh',
      args: () => ['-c', 'echo "error: failed to load model" >&2; exit 3'],
      healthyWithinMs: aMinute,
    });
    await expect(launching).rejects.toThrow(/sh exited with 3 before it was healthy; its last output:\nerror: failed to load model/);
  }, 10_000);

  it('fails at the deadline, with the output, when the process never answers, and ends the process', async () => {
    const launching = launchServer({
      command: 'sh',
      args: () => ['-c', 'echo "pid $$ still loading"; exec sleep 600'],
      healthyWithinMs: 1000,
    });
    await expect(launching).rejects.toThrow(/sh was not healthy within 1 s; its last output:\npid \d+ still loading/);
    const pid = Number(/pid (\d+) still loading/.exec(String(await launching.catch((e: unknown) => e)))?.[1]);
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  }, 15_000);

  it('resolves once the process answers its health URL, and stops it', async () => {
    const healthServer = "require('node:http').createServer((q, s) => s.end(q.url)).listen(Number(process.argv[1]), '127.0.0.1', () => console.log('listening'))";
    const server = await launchServer({
      command: process.execPath,
      args: (port) => ['-e', healthServer, String(port)],
      healthyWithinMs: aMinute,
    });
    try {
      expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await fetch(`${server.baseUrl}/health`)).text()).toBe('/health');
      expect(server.ended()).toBeUndefined();
      expect(server.logTail()).toBe('listening');
    } finally {
      await server.stop();
    }
    expect(server.ended()).toBe('was killed by SIGTERM');
  }, 15_000);
});
