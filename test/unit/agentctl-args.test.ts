import { z } from 'zod';
import { parseCommandArgs, parseJsonValue, splitCommand, validate } from '../../cli/args';
import { UsageError } from '../../cli/exit-codes';
import { listQuery, queryLiteral } from '../../client/list-query';

const options = {
  limit: { type: 'string', value: 'N', description: 'n' },
  message: { type: 'string', multiple: true, value: 'TEXT', description: 'm' },
  follow: { type: 'boolean', description: 'f' },
} as const;

describe('splitCommand', () => {
  it('finds the command after global options that take a value', () => {
    expect(splitCommand(['--address', 'h:1', '--json', 'status', 'r1'])).toEqual({ command: 'status', rest: ['--address', 'h:1', '--json', 'r1'] });
  });

  it('answers no command when there is none', () => {
    expect(splitCommand(['--json'])).toEqual({ command: undefined, rest: ['--json'] });
  });
});

describe('parseCommandArgs', () => {
  it('parses options, repeated options and global options after the command', () => {
    const args = parseCommandArgs(['r1', '--message', 'a', '--message', 'b', '--follow', '--limit', '5', '--json'], options, ['RUN']);
    expect(args.positional(0)).toBe('r1');
    expect(args.strings('message')).toEqual(['a', 'b']);
    expect(args.flag('follow')).toBe(true);
    expect(args.flag('json')).toBe(true);
    expect(args.int('limit')).toBe(5);
  });

  it('rejects an unknown option, naming it', () => {
    expect(() => parseCommandArgs(['r1', '--bogus'], options, ['RUN'])).toThrow(/unknown option '--bogus'/);
  });

  it('rejects a string option without a value', () => {
    expect(() => parseCommandArgs(['r1', '--limit'], options, ['RUN'])).toThrow(UsageError);
  });

  it('names a missing positional and rejects an extra one', () => {
    expect(() => parseCommandArgs([], options, ['RUN'])).toThrow('missing RUN');
    expect(() => parseCommandArgs(['r1', 'r2'], options, ['RUN'])).toThrow("unexpected argument 'r2'");
  });

  it('accepts --help without the positionals', () => {
    expect(parseCommandArgs(['--help'], options, ['RUN']).flag('help')).toBe(true);
  });

  it.each([['abc'], ['1.5'], ['0'], ['-3']])('rejects --limit %s, naming the flag', (value) => {
    const args = parseCommandArgs(['r1', `--limit=${value}`], options, ['RUN']);
    expect(() => args.int('limit')).toThrow(/--limit must be an integer/);
  });

  it('takes a negative number after a space as the value, so its own check names the flag', () => {
    const args = parseCommandArgs(['r1', '--limit', '-1'], options, ['RUN']);
    expect(() => args.int('limit')).toThrow("--limit must be an integer >= 1, got '-1'");
  });

  it('names a missing required option', () => {
    expect(() => parseCommandArgs(['r1'], options, ['RUN']).requiredString('limit')).toThrow('missing --limit');
  });
});

describe('JSON and schema validation', () => {
  it('reports invalid JSON with the flag name', () => {
    expect(() => parseJsonValue('--args', '{bad', z.unknown())).toThrow(/^--args: invalid JSON/);
  });

  it('reports a schema mismatch with the path under the flag', () => {
    expect(() => parseJsonValue('--policy', '{"maxToolCalls":-1}', z.object({ maxToolCalls: z.number().positive() }))).toThrow(/^--policy: maxToolCalls: /);
  });

  it('names fields built from flags by their flag', () => {
    expect(() => validate(z.object({ content: z.string().min(1) }), { content: '' }, { content: '--content' })).toThrow(/^--content: /);
  });
});

describe('list query', () => {
  it('filters agent runs by agent and status', () => {
    expect(listQuery({ agent: 'scripted', status: 'paused' })).toBe("WorkflowType = 'agentRun' AND AgentName = 'scripted' AND AgentStatus = 'paused' AND ExecutionStatus = 'Running'");
    expect(listQuery({ status: 'completed' })).toBe("WorkflowType = 'agentRun' AND AgentStatus = 'completed'");
    expect(listQuery({})).toBe("WorkflowType = 'agentRun'");
  });

  it('keeps quotes and backslashes inside one literal', () => {
    expect(queryLiteral("x' OR 'a' = 'a")).toBe("'x\\' OR \\'a\\' = \\'a'");
    expect(queryLiteral('trailing\\')).toBe("'trailing\\\\'");
  });
});
