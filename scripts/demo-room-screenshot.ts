// docs/screenshots/demo-room.png: the `--room` demo's dashboard as a user sees it. Starts the demo
// (`live-voice-bridge demo --room`, from source) on a free port, opens its printed login link in
// headless Chromium (Debian's /usr/bin/chromium), waits until the scene has been played once (the
// model's answer to its last line), and shoots the page from the header to the bottom of the Room
// card; then ends the demo with Ctrl-C (SIGINT to its process group).
// Run: node scripts/demo-room-screenshot.ts [out.png]
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { chromium } from 'playwright-core';

const outPath = process.argv[2] ?? 'docs/screenshots/demo-room.png';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

const port = await freePort();
const demo = spawn(process.execPath, ['main/cli.ts', 'demo', '--room', '--port', String(port)], {
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true,
  env: { ...process.env, NO_COLOR: '1' },
});
let out = '';
demo.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));

async function printed(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(out);
    if (match) return match;
    if (Date.now() > deadline || demo.exitCode !== null)
      throw new Error(`the demo did not print ${String(pattern)}:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

try {
  const [, loginUrl] = await printed(/Dashboard \(a one-time login link\):\n {2}(\S+)/, 60_000);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  // 820 px tall: the transcript panel fills the window, and the Room card sits right under it.
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  await page.goto(loginUrl!);
  await printed(/model +So far:/, 90_000);
  await page.waitForTimeout(1500);
  const room = await page.locator('#room-panel').boundingBox();
  if (!room) throw new Error('no Room card on the page');
  await page.screenshot({
    path: outPath,
    fullPage: true,
    clip: { x: 0, y: 0, width: 1280, height: Math.ceil(room.y + room.height + 16) },
  });
  await browser.close();
  console.log(`wrote ${outPath}`);
} finally {
  if (demo.pid) process.kill(-demo.pid, 'SIGINT');
  await new Promise((resolve) => demo.once('exit', resolve));
}
