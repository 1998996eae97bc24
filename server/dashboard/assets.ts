import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The dashboard's files, ready to serve. */
export interface DashboardAssets {
  readonly html: string;
  readonly js: string;
  readonly css: string;
  /** Content hash of the script and the styles: their URLs carry it, so they can be cached for good. */
  readonly version: string;
}

/**
 * Where the dashboard is: next to `server/` in the sources (`dashboard/`, TSX) and in the
 * package (`dist/dashboard/`, prebuilt by `npm run build`) alike.
 */
export const dashboardDir = resolve(__dirname, '../../dashboard');

const versionMark = /__VERSION__/g;

function withVersion(template: string, js: string, css: string): DashboardAssets {
  const version = createHash('sha256').update(js).update('\0').update(css).digest('hex').slice(0, 12);
  return { html: template.replace(versionMark, version), js, css, version };
}

/**
 * Bundles the dashboard from its sources (`main.tsx`) with esbuild, in memory.
 *
 * @throws Error when esbuild (a development dependency) is missing or the sources do not build.
 */
export async function buildDashboard(sourceDir = dashboardDir): Promise<{ template: string; js: string; css: string }> {
  // Loaded only here: a server running from the package serves the prebuilt files instead.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(sourceDir, 'main.tsx')],
    absWorkingDir: sourceDir,
    tsconfig: join(sourceDir, 'tsconfig.json'),
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const js = result.outputFiles[0]?.text;
  if (js === undefined) throw new Error('esbuild produced no dashboard bundle');
  const [template, css] = await Promise.all([readFile(join(sourceDir, 'index.html'), 'utf8'), readFile(join(sourceDir, 'styles.css'), 'utf8')]);
  return { template, js, css };
}

/**
 * The dashboard's files: the prebuilt ones (`app.js` next to `index.html`) when present, else
 * bundled from the sources now.
 *
 * @throws Error naming what is missing when there is neither a build nor the sources.
 */
export async function loadDashboardAssets(dir = dashboardDir): Promise<DashboardAssets> {
  if (existsSync(join(dir, 'app.js'))) {
    const [template, js, css] = await Promise.all(['index.html', 'app.js', 'app.css'].map((f) => readFile(join(dir, f), 'utf8')));
    return withVersion(template ?? '', js ?? '', css ?? '');
  }
  if (existsSync(join(dir, 'main.tsx'))) {
    const built = await buildDashboard(dir);
    return withVersion(built.template, built.js, built.css);
  }
  throw new Error(`the dashboard is not built: neither ${join(dir, 'app.js')} nor its sources exist (npm run build writes dist/dashboard)`);
}
