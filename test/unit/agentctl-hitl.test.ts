import { AgentClientError } from '../../client/agent-client';
import { UsageError } from '../../cli/exit-codes';
import { answerKindOf, buildAnswer, findOpenItem, parseChoose, parseExternalResults, type AnswerFlags } from '../../cli/hitl/answers';
import { renderPending, renderRemaining } from '../../cli/hitl/render';
import type { AwaitItem, PendingInputs } from '../../contracts';

const questions: AwaitItem = {
  kind: 'questions',
  id: 'prefs',
  questions: [
    { id: 'color', prompt: 'Favourite colour?', options: [{ id: 'red', label: 'Red' }, { id: 'blue', label: 'Blue' }] },
    { id: 'sizes', prompt: 'Sizes?', options: [{ id: 's', label: 'S' }, { id: 'm', label: 'M' }], allowMultiple: true },
  ],
};
const clarification: AwaitItem = { kind: 'clarification', id: 'city', question: 'Which city?', missingFields: ['city'] };
const external: AwaitItem = {
  kind: 'external_tools',
  id: 'quotes',
  calls: [
    { toolCallId: 'ext_1', name: 'get_quote', args: { symbol: 'AAPL' } },
    { toolCallId: 'ext_2', name: 'get_quote', args: { symbol: 'MSFT' } },
  ],
};

const flags = (f: Partial<AnswerFlags>): AnswerFlags => ({ choose: [], results: [], errors: [], ...f });

describe('--choose', () => {
  it('maps QUESTION=OPT[,OPT...] to option ids per question', () => {
    expect(parseChoose(['color=red', 'sizes=s, m'], ['color', 'sizes'])).toEqual({ color: ['red'], sizes: ['s', 'm'] });
  });

  it('takes a bare option list when the item has one question', () => {
    expect(parseChoose(['blue'], ['color'])).toEqual({ color: ['blue'] });
    expect(parseChoose(['color=blue'], ['color'])).toEqual({ color: ['blue'] });
  });

  it('passes unknown options through for the run to judge', () => {
    expect(parseChoose(['color=green'], ['color', 'sizes'])).toEqual({ color: ['green'] });
  });

  it.each([
    [['red'], /--choose: expected QUESTION=OPT\[,OPT\.\.\.\], got 'red' \(questions: color, sizes\)/],
    [['shape=round'], /--choose: no question 'shape'; questions: color, sizes/],
    [['color='], /--choose color: name at least one option/],
    [['color=red', 'color=blue'], /question 'color' given twice/],
  ])('%j is a usage error', (values, message) => {
    expect(() => parseChoose(values, ['color', 'sizes'])).toThrow(message);
    expect(() => parseChoose(values, ['color', 'sizes'])).toThrow(UsageError);
  });

  it('keeps a question called __proto__ as an own key', () => {
    const answers = parseChoose(['__proto__=x'], ['__proto__', 'other']);
    expect(Object.keys(answers)).toEqual(['__proto__']);
  });
});

describe('--result / --error', () => {
  const ids = ['ext_1', 'ext_2'];

  it('parses CALLID=JSON and CALLID=MESSAGE (messages may contain =)', () => {
    expect(parseExternalResults(['ext_1={"price":1,"note":"a=b"}'], ['ext_2=down: x=1'], ids)).toEqual([
      { toolCallId: 'ext_1', result: { price: 1, note: 'a=b' } },
      { toolCallId: 'ext_2', error: 'down: x=1' },
    ]);
  });

  it('takes the whole value when the item has one call', () => {
    expect(parseExternalResults(['{"a":"x=y"}'], [], ['ext_1'])).toEqual([{ toolCallId: 'ext_1', result: { a: 'x=y' } }]);
    expect(parseExternalResults([], ['a=b broke'], ['ext_1'])).toEqual([{ toolCallId: 'ext_1', error: 'a=b broke' }]);
  });

  it.each([
    [['ext_1={bad'], [], /^--result ext_1: invalid JSON/],
    [['{"a":1}'], [], /--result: expected CALLID=JSON/],
    [['ext_9=1'], [], /--result: no call 'ext_9'; calls: ext_1, ext_2/],
    [['ext_1=1'], ['ext_1=down'], /call 'ext_1' has more than one --result \/ --error/],
    [[], ['ext_1= '], /--error ext_1: the message must not be empty/],
  ])('%j %j is a usage error', (results, errors, message) => {
    expect(() => parseExternalResults(results, errors, ids)).toThrow(message);
  });
});

describe('answerKindOf', () => {
  it.each([
    [{ text: 'Paris' }, 'clarification'],
    [{ choose: ['a=b'] }, 'questions'],
    [{ errors: ['x=y'] }, 'external_tools'],
  ] as const)('%j answers %s', (f, kind) => {
    expect(answerKindOf(flags(f))).toBe(kind);
  });

  it.each([
    [{}, /give the answer: --text/],
    [{ text: 'x', choose: ['a=b'] }, /give one kind of answer, not --text \[--fields\] and --choose/],
    [{ fields: { city: 'Paris' } }, /missing --text/],
  ])('%j is a usage error', (f, message) => {
    expect(() => answerKindOf(flags(f))).toThrow(message);
  });
});

describe('buildAnswer', () => {
  it('builds each kind of answer', () => {
    expect(buildAnswer(clarification, flags({ text: 'Paris', fields: { city: 'Paris' } }))).toEqual({
      kind: 'clarification',
      itemId: 'city',
      answer: 'Paris',
      fields: { city: 'Paris' },
    });
    expect(buildAnswer(questions, flags({ choose: ['color=blue', 'sizes=s,m'] }))).toEqual({ kind: 'questions', itemId: 'prefs', answers: { color: ['blue'], sizes: ['s', 'm'] } });
    expect(buildAnswer(external, flags({ results: ['ext_1=1'], errors: ['ext_2=down'] }))).toEqual({
      kind: 'external_tools',
      itemId: 'quotes',
      results: [
        { toolCallId: 'ext_1', result: 1 },
        { toolCallId: 'ext_2', error: 'down' },
      ],
    });
  });

  it('names the flags that fit when they do not fit the item', () => {
    expect(() => buildAnswer(clarification, flags({ choose: ['x'] }))).toThrow('item "city" is a clarification item: answer it with --text [--fields]');
    expect(() => buildAnswer(external, flags({ text: 'x' }))).toThrow(/answer it with --result \/ --error/);
  });

  it('validates with awaitAnswerSchema, naming the flag', () => {
    expect(() => buildAnswer(clarification, flags({ text: '' }))).toThrow(/^--text: the answer must not be empty/);
  });
});

describe('pending inputs', () => {
  const pending: PendingInputs = {
    approvals: [{ toolCallId: 'call_0_0', name: 'add_to_watchlist', args: { symbols: ['AAPL'] }, turn: 0, requestedAt: '2025-01-01T00:00:00.000Z' }],
    await: {
      awaitId: 'await-1',
      deadline: '2025-01-01T01:00:00.000Z',
      items: [
        { id: 'prefs', kind: 'questions', answered: true, item: questions },
        { id: 'city', kind: 'clarification', answered: false, item: clarification },
      ],
    },
  };

  it('finds an open item, or refuses in the run\'s words', () => {
    expect(findOpenItem(pending, 'city')).toEqual({ awaitId: 'await-1', item: clarification, answered: false });
    expect(() => findOpenItem(pending, 'nope')).toThrow(new AgentClientError('rejected', 'no await item "nope"; items: prefs, city'));
    expect(() => findOpenItem({ approvals: [] }, 'city')).toThrow('the run is not waiting for answers');
  });

  it('renders approvals and the await for people', () => {
    expect(renderPending('r1', pending)).toEqual([
      'approvals (waiting for confirmation):',
      '  call_0_0  add_to_watchlist {"symbols":["AAPL"]}  since 2025-01-01T00:00:00.000Z (turn 0)',
      'await await-1 (until 2025-01-01T01:00:00.000Z):',
      '  prefs  questions  answered',
      '    color: Favourite colour? options: red (Red), blue (Blue)',
      '    sizes: Sizes? (several allowed) options: s (S), m (M)',
      '  city  clarification  open',
      '    Which city?',
      '    fields: city',
    ]);
    expect(renderPending('r1', { approvals: [] })).toEqual(['r1 waits for nothing']);
    expect(renderRemaining(pending)).toBe('still waiting: approvals: call_0_0; await items: city');
    expect(renderRemaining({ approvals: [] })).toBe('nothing else waits');
  });
});
