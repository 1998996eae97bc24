/**
 * A tool that passes on an upstream service's text may hand the worker strings that are not
 * well-formed Unicode (lone UTF-16 surrogates). Failure messages travel as protobuf strings,
 * which cannot hold them: the SDK's core could not encode the activity's completion and the
 * worker process exited. Every string leaving an activity is made well-formed first, so the
 * call fails (or answers) as usual and the same worker carries on.
 */
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, observations, scriptedInput } from '../support/scripts';

const suite = agentSuite('well-formed');

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether any string in `value` (keys included) holds a lone surrogate. */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return loneSurrogate.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (typeof value === 'object' && value !== null) return Object.entries(value).some(([k, v]) => loneSurrogate.test(k) || hasLoneSurrogate(v));
  return false;
}

function garbleRun(mode: 'throw' | 'tool_failure' | 'result') {
  return scriptedInput([callStep({ name: 'garble', args: { mode } }), finalStep('after garble')], { agent: 'faulty' });
}

describe('text with lone surrogates from a tool', () => {
  it('a thrown error, a ToolFailure and a result each reach the run well-formed; the same worker then finishes ten more runs', async () => {
    for (const mode of ['throw', 'tool_failure', 'result'] as const) {
      const { workflowId } = await suite.agents.start(garbleRun(mode));
      const result = await suite.agents.result(workflowId);
      expect(result).toMatchObject({ status: 'completed', final: { text: 'after garble' } });
      const [seen] = observations(result);
      expect(hasLoneSurrogate(seen)).toBe(false);
      expect(JSON.stringify(seen)).toContain('upstream said \ufffd and \ufffd');
      if (mode === 'result') expect(seen).toMatchObject({ status: 'ok', result: { text: 'upstream said \ufffd and \ufffd' } });
      else expect(seen).toMatchObject({ status: 'error', errorMessage: expect.stringContaining('upstream said \ufffd and \ufffd') });
      // Nothing in the run's history holds a lone surrogate either.
      expect(hasLoneSurrogate(JSON.parse(await suite.agents.exportHistory(workflowId)))).toBe(false);
    }
    const more = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'still here' } }), finalStep('ok')]));
        return suite.agents.result(workflowId);
      }),
    );
    expect(more.map((r) => r.status)).toEqual(Array(10).fill('completed'));
  });
});
