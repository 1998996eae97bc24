// Jest's order of test files: its own (files that failed last time first, then the slowest by
// the durations it cached), except that files it has no duration for (a fresh clone, as in CI)
// start with the ones known to take longest. Ordered by size, the corpus replays started last and
// ran alone for minutes after every other file had ended.
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

/** Slowest first, as measured with two workers on a 2-core machine (paths or folders). */
const knownSlow = [
  'test/replay/',
  'test/integration/provider-outage.test.ts',
  'test/integration/cross-feature-matrix.test.ts',
  'test/integration/agentctl-outage.test.ts',
  'test/integration/agentctl.test.ts',
  'test/integration/agentctl-hitl.test.ts',
  'test/integration/dashboard.test.ts',
  'test/integration/mcp.test.ts',
  'test/integration/observability.test.ts',
];

export default class KnownSlowFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = (test) => {
      if (test.duration != null) return knownSlow.length;
      const path = relative(test.context.config.rootDir, test.path).split('\\').join('/');
      const index = knownSlow.findIndex((prefix) => path.startsWith(prefix));
      return index < 0 ? knownSlow.length : index;
    };
    // A stable sort: files that are not in the list keep Jest's order.
    return sorted.map((test) => ({ test, rank: rank(test) })).sort((a, b) => a.rank - b.rank).map(({ test }) => test);
  }
}
