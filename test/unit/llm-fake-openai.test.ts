import OpenAI from 'openai';
import { callTools, dynamic, FakeOpenAIServer, held, say, toolCall, toolPairingProblem } from '../../testing/fake-model';
import { freeLoopbackPort } from '../../testing/dev-server-port';

let fake: FakeOpenAIServer;
let openai: OpenAI;

beforeAll(async () => {
  fake = await FakeOpenAIServer.start();
  openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'k', maxRetries: 0 });
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => fake.reset());

describe('fake OpenAI server', () => {
  it('starts on the port asked for; a port taken is named', async () => {
    const port = await freeLoopbackPort();
    const pinned = await FakeOpenAIServer.start({ port });
    try {
      expect(pinned.baseURL).toBe(`http://127.0.0.1:${port}/v1`);
      await expect(FakeOpenAIServer.start({ port })).rejects.toThrow(`fake OpenAI server: port ${port} on 127.0.0.1 is taken by another program; pick another port`);
    } finally {
      await pinned.close();
    }
  });

  it('answers non-streaming requests too', async () => {
    fake.script(callTools(toolCall('echo', { text: 'hi' }, 'c1')));
    const completion = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.tool_calls).toEqual([{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } }]);
    expect(completion.usage?.total_tokens).toBe(30);
  });

  it('fails loudly when the script runs out: HTTP 500 and a recorded error', async () => {
    const err = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect(fake.errors).toEqual([expect.stringContaining('script exhausted at request #1')]);
  });

  it('rejects (400, recorded) a conversation with an unanswered tool call, as providers do', async () => {
    const err = await openai.chat.completions
      .create({
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{}' } }] },
          { role: 'user', content: 'next' },
        ],
      })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(fake.errors[0]).toContain('were not answered');
  });

  it('lets a dynamic step decide from the request', async () => {
    fake.script(dynamic((r) => say(`you sent ${r.body?.messages.length} messages`)));
    const completion = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.content).toBe('you sent 1 messages');
  });

  it('holds a held step until it is released, then answers it', async () => {
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => fake.script(held(say('thought it over'), new Promise<void>((r) => (release = r)), resolve)));
    const answer = openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    await arrived;
    release();
    expect((await answer).choices[0]?.message.content).toBe('thought it over');
  });

  it('sends nothing for a held step whose client went away, and takes the next request with the next step', async () => {
    let release!: () => void;
    const abort = new AbortController();
    fake.script(held(say('never read'), new Promise<void>((r) => (release = r)), () => abort.abort()), say('next'));
    await expect(openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal: abort.signal })).rejects.toThrow(/abort/i);
    release();
    expect((await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).choices[0]?.message.content).toBe('next');
    expect(fake.errors).toEqual([]);
  });

  it('checks tool-call pairing', () => {
    expect(toolPairingProblem([{ role: 'tool', tool_call_id: 'x', content: '' }])).toContain('not an open tool call');
    expect(toolPairingProblem([{ role: 'user', content: 'a' }])).toBeUndefined();
  });
});
