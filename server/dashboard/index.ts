import type { Context, Hono } from 'hono';
import { ApiError } from '../errors';
import { loadDashboardAssets, type DashboardAssets } from './assets';

export { buildDashboard, loadDashboardAssets, type DashboardAssets } from './assets';

/** The page may load only its own script and styles and talk only to its own server. */
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Serves the web dashboard: the page at `/` and its script and styles under `/assets/`.
 * The files are read (or bundled from the sources) the first time they are asked for. The
 * page is revalidated on every load; the assets' URLs carry their content hash, so a browser
 * keeps them until they change. Nothing under `/api` is touched.
 */
export function mountDashboard(app: Hono): void {
  let loading: Promise<DashboardAssets> | undefined;
  const assets = async (): Promise<DashboardAssets> => {
    loading ??= loadDashboardAssets();
    try {
      return await loading;
    } catch (err) {
      loading = undefined; // a fixed source file builds on the next request
      throw new ApiError('not_configured', `dashboard unavailable: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  const page = async (c: Context) => {
    const { html } = await assets();
    c.header('Cache-Control', 'no-cache');
    c.header('Content-Security-Policy', contentSecurityPolicy);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    return c.html(html);
  };
  app.get('/', page);
  app.get('/index.html', page);

  const asset = (pick: (a: DashboardAssets) => string, type: string) => async (c: Context) => {
    const loaded = await assets();
    const current = c.req.query('v') === loaded.version;
    c.header('Content-Type', type);
    c.header('Cache-Control', current ? 'public, max-age=31536000, immutable' : 'no-cache');
    c.header('ETag', `"${loaded.version}"`);
    c.header('X-Content-Type-Options', 'nosniff');
    if (c.req.header('if-none-match') === `"${loaded.version}"`) return c.body(null, 304);
    return c.body(pick(loaded));
  };
  app.get('/assets/app.js', asset((a) => a.js, 'text/javascript; charset=utf-8'));
  app.get('/assets/app.css', asset((a) => a.css, 'text/css; charset=utf-8'));
}
