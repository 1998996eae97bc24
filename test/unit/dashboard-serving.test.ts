import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { loadDashboardAssets, mountDashboard } from '../../server/dashboard';

/** The dashboard's page and assets as the server serves them (no browser, no Temporal). */
describe('serving the dashboard', () => {
  const app = new Hono();
  mountDashboard(app);

  it('serves the page at / with its content-hashed script and styles, revalidated on each load', async () => {
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    const version = /\/assets\/app\.js\?v=([0-9a-f]{12})/.exec(html)?.[1];
    expect(version).toBeDefined();
    expect(html).toContain(`/assets/app.css?v=${version}`);

    const js = await app.request(`/assets/app.js?v=${version}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await js.text()).length).toBeGreaterThan(1000);

    const css = await app.request(`/assets/app.css?v=${version}`);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(await css.text()).toContain('.timeline');
  });

  it('does not let browsers keep an asset asked for without the current hash, and answers 304 to its ETag', async () => {
    const res = await app.request('/assets/app.js?v=stale');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{12}"$/);
    const again = await app.request('/assets/app.js', { headers: { 'If-None-Match': etag ?? '' } });
    expect(again.status).toBe(304);
  });

  it('leaves every other path alone', async () => {
    expect((await app.request('/api/runs')).status).toBe(404);
    expect((await app.request('/assets/other.js')).status).toBe(404);
  });

  it('serves a prebuilt dashboard (dist/dashboard) without bundling, and says what is missing when there is none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashboard-dist-'));
    try {
      await expect(loadDashboardAssets(dir)).rejects.toThrow(`the dashboard is not built: neither ${join(dir, 'app.js')} nor its sources exist`);
      await writeFile(join(dir, 'index.html'), '<script src="/assets/app.js?v=__VERSION__"></script>');
      await writeFile(join(dir, 'app.js'), 'console.log(1)');
      await writeFile(join(dir, 'app.css'), 'body{}');
      const assets = await loadDashboardAssets(dir);
      expect(assets.js).toBe('console.log(1)');
      expect(assets.html).toBe(`<script src="/assets/app.js?v=${assets.version}"></script>`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
