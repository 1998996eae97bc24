/**
 * `npx tsx scripts/count-exports.ts`: how many names each entry point exports (values and
 * types), and the total. A public surface is designed: watch these numbers on change.
 */
import { entryExports } from './entry-exports';

const exports = entryExports();
let total = 0;
for (const [entry, names] of exports) {
  const values = names.filter((name) => !['interface', 'type'].includes(name.kind)).length;
  console.log(`durable-agents/${entry}: ${names.length} (${values} values, ${names.length - values} types)`);
  total += names.length;
}
console.log(`total: ${total}`);
