// The dashboard page and its assets. The page shell and assets are public (they hold no data:
// every piece of data comes from token- or session-protected API routes). Scripts come from
// `dist/renderer/*.js` when a build exists, otherwise from `renderer/*.ts` with the types
// stripped by Node (`module.stripTypeScriptTypes`), so `npm run headless` needs no build step.
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as nodeModule from 'node:module';
import path from 'node:path';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

export interface DashboardDeps {
  /** Project root holding `renderer/` (and maybe `dist/renderer/`); found from this file when absent. */
  appRoot?: string;
}

/** Strict CSP: our own scripts and styles only, API calls to ourselves, images we made (blob:). */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(js|ts|css|svg|png)$/;
const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  ts: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
};

type StripTypes = (code: string, options?: { mode?: 'strip' | 'transform' }) => string;

export function findAppRoot(start: string = import.meta.dirname): string {
  let dir = start;
  for (let i = 0; i < 8; i++) {
    if (existsSync(path.join(dir, 'renderer', 'index.html'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`renderer/index.html not found above ${start}`);
}

/** Scripts by module name: built JS if present, else the TypeScript source with types stripped (cached by mtime). */
export function createScriptSource(appRoot: string): (name: string) => string | null {
  const cache = new Map<string, { mtimeMs: number; code: string }>();
  // Absent from Node before 22.13 (and from an older Electron's Node): the built JS is used then.
  const strip: StripTypes | undefined =
    'stripTypeScriptTypes' in nodeModule ? nodeModule.stripTypeScriptTypes : undefined;
  return (name) => {
    const built = path.join(appRoot, 'dist', 'renderer', `${name}.js`);
    const source = path.join(appRoot, 'renderer', `${name}.ts`);
    const builtTime = existsSync(built) ? statSync(built).mtimeMs : -1;
    const sourceTime = existsSync(source) ? statSync(source).mtimeMs : -1;
    if (builtTime < 0 && sourceTime < 0) return null;
    // A build older than its source (editing after `npm run build`) is ignored in favour of the source.
    const file = builtTime >= sourceTime ? built : source;
    const mtimeMs = statSync(file).mtimeMs;
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit.code;
    let code = readFileSync(file, 'utf8');
    if (file === source) {
      if (!strip)
        throw new HttpError(
          500,
          'renderer_not_built',
          'this Node has no stripTypeScriptTypes; run `npm run build` to compile the dashboard',
        );
      code = strip(code, { mode: 'strip' });
    }
    cache.set(file, { mtimeMs, code });
    return code;
  };
}

export const registerDashboardRoutes: RouteModule<DashboardDeps> = (app, deps) => {
  const appRoot = deps.appRoot ?? findAppRoot();
  const rendererDir = path.join(appRoot, 'renderer');
  const script = createScriptSource(appRoot);

  app.get('/', { config: { public: true } }, async (_request, reply) => {
    const html = readFileSync(path.join(rendererDir, 'index.html'), 'utf8');
    return reply.header('content-security-policy', DASHBOARD_CSP).type('text/html; charset=utf-8').send(html);
  });

  app.get('/assets/:name', { config: { public: true } }, async (request, reply) => {
    const name = String((request.params as { name?: unknown }).name ?? '');
    const match = ASSET_NAME.exec(name);
    if (!match) throw new HttpError(404, 'not_found', `no asset ${JSON.stringify(name)}`);
    const ext = match[1]!;
    let body: string | Buffer | null;
    if (ext === 'js' || ext === 'ts') body = script(name.slice(0, -ext.length - 1));
    else {
      const file = path.join(rendererDir, name);
      body = existsSync(file) ? readFileSync(file) : null;
    }
    if (body === null) throw new HttpError(404, 'not_found', `no asset ${JSON.stringify(name)}`);
    return reply.header('content-security-policy', DASHBOARD_CSP).type(CONTENT_TYPES[ext]!).send(body);
  });
};
