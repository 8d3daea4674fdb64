// A loopback HTTP server that every download electron-builder could attempt is pointed at (the
// Electron zip mirror, its own tool binaries mirror, and HTTP(S) proxies). It refuses each request
// with a message that says what was asked for, and records it, so the offline package check fails
// plainly if a download is ever attempted instead of fetching from the internet or hanging.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface DownloadTrap {
  /** Environment variables that route electron-builder's and @electron/get's downloads here. */
  env: Record<string, string>;
  /** `-c.` overrides for electron-builder that do the same through its config. */
  builderArgs: string[];
  /** What was asked for, in order ("GET http://…"). */
  attempts: string[];
  close: () => Promise<void>;
}

export async function startDownloadTrap(): Promise<DownloadTrap> {
  const attempts: string[] = [];
  const server = http.createServer((request, response) => {
    const what = `${request.method ?? '?'} ${request.url ?? '?'}`;
    attempts.push(what);
    response.writeHead(403, { 'content-type': 'text/plain' });
    response.end(`offline package check: a download was attempted and refused: ${what}\n`);
  });
  // CONNECT is how an HTTPS request reaches a proxy.
  server.on('connect', (request: http.IncomingMessage, socket: Duplex) => {
    attempts.push(`CONNECT ${request.url ?? '?'}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: {
      ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
      ELECTRON_MIRROR: `${base}/electron/`,
      ELECTRON_BUILDER_BINARIES_MIRROR: `${base}/electron-builder-binaries/`,
      ELECTRON_BUILDER_BINARIES_ALLOW_HTTP: 'true',
      HTTP_PROXY: base,
      HTTPS_PROXY: base,
      http_proxy: base,
      https_proxy: base,
      NO_PROXY: '',
      no_proxy: '',
    },
    builderArgs: [`-c.electronDownload.mirror=${base}/electron/`],
    attempts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
