/**
 * `npm run build` (after tsc): bundles the web dashboard into dist/dashboard, where the built
 * server (dist/server/dashboard) serves it from, so the package needs no bundler at run time.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { buildDashboard } from '../server/dashboard/assets';

async function main(): Promise<void> {
  const out = resolve(__dirname, '../dist/dashboard');
  const { template, js, css } = await buildDashboard(resolve(__dirname, '../dashboard'));
  await mkdir(out, { recursive: true });
  await Promise.all([writeFile(join(out, 'index.html'), template), writeFile(join(out, 'app.js'), js), writeFile(join(out, 'app.css'), css)]);
  console.log(`dashboard: ${out} (app.js ${Math.round(js.length / 1024)} KiB)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
