import { PassThrough } from 'node:stream';
import { askAnswer, fieldValue, parseSelection } from '../../cli/interactive/answer-prompts';
import { askDecision } from '../../cli/interactive/decision-prompt';
import { EndOfInput, LineReader, linePrompter, type Prompter } from '../../cli/interactive/prompter';
import type { AwaitItem } from '../../contracts';

/** A prompter that answers from a list and records everything shown. */
function scripted(answers: string[]): Prompter & { shown: string[] } {
  const shown: string[] = [];
  return {
    shown,
    ask: async (prompt) => {
      shown.push(prompt);
      const next = answers.shift();
      if (next === undefined) throw new EndOfInput();
      return next;
    },
    say: (line) => shown.push(line),
  };
}

const approval = { toolCallId: 'call_0_0', name: 'add', args: { a: 1, b: 2 }, turn: 0, requestedAt: '2025-01-01T00:00:00.000Z' };

describe('askDecision', () => {
  it.each([
    [['a'], { decision: 'approve', toolCallId: 'call_0_0', always: false, by: 'bob' }],
    [['A'], { decision: 'approve', toolCallId: 'call_0_0', always: true, by: 'bob' }],
    [['r', 'too risky'], { decision: 'reject', toolCallId: 'call_0_0', reason: 'too risky', by: 'bob' }],
    [['r', ''], { decision: 'reject', toolCallId: 'call_0_0', by: 'bob' }],
    [['x', 'toString', 'e', '{bad', '{"a":10,"b":5}'], { decision: 'edit', toolCallId: 'call_0_0', args: { a: 10, b: 5 }, by: 'bob' }],
  ])('%j decides %j', async (answers, decision) => {
    const p = scripted(answers);
    await expect(askDecision(p, approval, 'bob')).resolves.toEqual(decision);
    expect(p.shown[0]).toBe('add(call_0_0) {"a":1,"b":2} waits for confirmation');
  });

  it('says what to type after an unknown answer, and what was wrong with the JSON', async () => {
    const p = scripted(['x', 'e', '{bad', '{}']);
    await askDecision(p, approval);
    expect(p.shown).toContain('type a (approve), A (approve always), r (reject) or e (edit)');
    expect(p.shown.some((l) => l.startsWith('invalid JSON: '))).toBe(true);
  });

  it('end of input ends the prompt', async () => {
    await expect(askDecision(scripted([]), approval)).rejects.toBeInstanceOf(EndOfInput);
  });
});

const questions: Extract<AwaitItem, { kind: 'questions' }> = {
  kind: 'questions',
  id: 'prefs',
  title: 'Preferences',
  questions: [
    { id: 'color', prompt: 'Favourite colour?', options: [{ id: 'red', label: 'Red' }, { id: 'blue', label: 'Blue' }] },
    { id: 'sizes', prompt: 'Sizes?', options: [{ id: 's', label: 'S' }, { id: 'm', label: 'M' }], allowMultiple: true },
  ],
};

describe('questions', () => {
  const [color, sizes] = questions.questions;

  it('accepts numbers and ids, and refuses what it cannot use', () => {
    expect(parseSelection('2', color!)).toEqual(['blue']);
    expect(parseSelection('red', color!)).toEqual(['red']);
    expect(parseSelection('1, m', sizes!)).toEqual(['s', 'm']);
    expect(parseSelection('1 2', color!)).toBe('choose one option');
    expect(parseSelection('3', color!)).toBe('no option 3; type a number from 1 to 2 or an option id');
    expect(parseSelection('', color!)).toBe('choose at least one option');
  });

  it('shows numbered options and asks again after a bad choice', async () => {
    const p = scripted(['green', '2', '1,2']);
    await expect(askAnswer(p, questions)).resolves.toEqual({ kind: 'questions', itemId: 'prefs', answers: { color: ['blue'], sizes: ['s', 'm'] } });
    expect(p.shown.slice(0, 5)).toEqual(['Preferences', 'Favourite colour?', '  1) Red [red]', '  2) Blue [blue]', 'choose (a number or id) > ']);
    expect(p.shown).toContain('no option green; type a number from 1 to 2 or an option id');
  });
});

describe('clarifications and external tools', () => {
  it('asks the question and each missing field (JSON or text)', async () => {
    const item: AwaitItem = { kind: 'clarification', id: 'city', question: 'Which city?', missingFields: ['city', 'days'] };
    const p = scripted(['', 'Paris', 'Paris', '3']);
    await expect(askAnswer(p, item)).resolves.toEqual({ kind: 'clarification', itemId: 'city', answer: 'Paris', fields: { city: 'Paris', days: 3 } });
    expect(p.shown).toEqual(['Which city?', 'answer > ', 'the answer must not be empty', 'answer > ', 'city > ', 'days > ']);
    expect(fieldValue('{"a":1}')).toEqual({ a: 1 });
    expect(fieldValue('not json')).toBe('not json');
  });

  it('asks a JSON result or !error per call', async () => {
    const item: AwaitItem = {
      kind: 'external_tools',
      id: 'quotes',
      calls: [
        { toolCallId: 'ext_1', name: 'get_quote', args: { symbol: 'AAPL' } },
        { toolCallId: 'ext_2', name: 'get_quote', args: { symbol: 'MSFT' } },
      ],
    };
    const p = scripted(['{oops', '{"price":1}', '!service down']);
    await expect(askAnswer(p, item)).resolves.toEqual({
      kind: 'external_tools',
      itemId: 'quotes',
      results: [
        { toolCallId: 'ext_1', result: { price: 1 } },
        { toolCallId: 'ext_2', error: 'service down' },
      ],
    });
  });
});

describe('LineReader', () => {
  it('queues lines that arrive early, echoes them for pipes and ends with EndOfInput', async () => {
    const input = new PassThrough();
    input.end('a\n  r \n');
    const reader = new LineReader(input);
    const shown: string[] = [];
    const p = linePrompter(reader, (t) => shown.push(`prompt:${t}`), (l) => shown.push(l), true);
    await reader.ended;
    await expect(p.ask('1> ')).resolves.toBe('a');
    await expect(p.ask('2> ')).resolves.toBe('r');
    await expect(p.ask('3> ')).rejects.toBeInstanceOf(EndOfInput);
    expect(shown).toEqual(['prompt:1> ', 'a', 'prompt:2> ', '  r ', 'prompt:3> ', '']);
    reader.close();
  });

  it('waits for a line that has not arrived yet', async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const next = reader.next();
    input.write('late\n');
    await expect(next).resolves.toBe('late');
    reader.close();
  });
});
