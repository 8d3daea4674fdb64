// The dashboard page and assets over a real socket: public shell with a strict CSP, scripts served
// as JavaScript (types stripped from renderer/*.ts), nothing outside renderer/ reachable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { DASHBOARD_CSP, registerDashboardRoutes } from '../../../main/core/sidecar/routes/dashboard.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';

let sidecar: Sidecar;
beforeAll(async () => {
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: 't'.repeat(40),
    logger: silentLogger(),
    routes: [(app) => registerDashboardRoutes(app, {})],
  });
  await sidecar.listen();
});
afterAll(() => sidecar.close());

describe('dashboard route', () => {
  it('serves the page without a token, with a strict CSP', async () => {
    const res = await fetch(`${sidecar.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).toContain('<script type="module" src="/assets/main.js">');
    for (const id of ['call-panel', 'notes-panel', 'schedule-panel', 'frame-panel', 'settings-panel'])
      expect(html).toContain(`id="${id}"`);
  });

  it('serves scripts as JavaScript with the TypeScript types gone', async () => {
    for (const name of ['main.js', 'api.ts', 'format.ts']) {
      const res = await fetch(`${sidecar.url}/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      const code = await res.text();
      expect(code).not.toMatch(/^import type /m);
      expect(code).not.toMatch(/: Promise<|readonly #|: string\)/);
    }
    // The stripped module parses and runs as JavaScript (one that imports nothing: a data: URL has no base for `./x.ts`).
    const moment = await (await fetch(`${sidecar.url}/assets/moment-format.ts`)).text();
    expect(moment).not.toMatch(/: number|: string/);
    const mod = (await import(`data:text/javascript;base64,${Buffer.from(moment).toString('base64')}`)) as {
      formatMoment: (s: number, zone: string) => string;
    };
    expect(mod.formatMoment(Date.UTC(2026, 11, 2, 8, 0) / 1000, 'Europe/Berlin')).toBe(
      '2026-12-02 09:00 Europe/Berlin',
    );
  });

  it('serves styles and the icon, and nothing outside renderer/', async () => {
    expect((await fetch(`${sidecar.url}/assets/styles.css`)).headers.get('content-type')).toMatch(/^text\/css/);
    expect((await fetch(`${sidecar.url}/assets/icon.svg`)).status).toBe(200);
    for (const bad of ['..%2Fpackage.json', '%2e%2e%2fmain%2fcli.ts', 'nope.js', 'index.html', 'Main.js']) {
      const res = await fetch(`${sidecar.url}/assets/${bad}`);
      expect(res.status, bad).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });
});
