// The dashboard page and assets over a real socket: public shell with a strict CSP, scripts served
// as JavaScript (types stripped from renderer/*.ts), nothing outside renderer/ reachable.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { DASHBOARD_CSP, registerDashboardRoutes } from '../../../main/core/sidecar/routes/dashboard.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';

let sidecar: Sidecar;
beforeAll(async () => {
  sidecar = createSidecar({ host: '127.0.0.1', port: 0, token: 't'.repeat(40), logger: silentLogger(), routes: [(app) => registerDashboardRoutes(app, {})] });
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
    for (const id of ['call-panel', 'notes-panel', 'schedule-panel', 'frame-panel', 'settings-panel']) expect(html).toContain(`id="${id}"`);
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
    // The stripped modules parse and run as JavaScript, their relative imports as the page resolves them.
    const dir = mkdtempSync(path.join(tmpdir(), 'lvb-assets-'));
    for (const name of ['format.ts', 'moment-format.ts']) writeFileSync(path.join(dir, name), await (await fetch(`${sidecar.url}/assets/${name}`)).text());
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    const mod = (await import(pathToFileURL(path.join(dir, 'format.ts')).href)) as { formatCountdown: (s: number) => string };
    expect(mod.formatCountdown(65)).toBe('in 1 m 05 s');
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
