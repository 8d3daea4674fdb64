// The call in view, and a page that shows only what it has confirmed: what a person sees in the
// desktop window's default size (1120×780) and in a small one (800×600), while loading, signed out,
// and after the app died under the page.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { control, login, shootDoc, startOwnHarness } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

/** What the harness's fake model answers to speech (test/ui/harness.ts FAKE_MODEL_REPLY; importing it would start a harness). */
const FAKE_MODEL_REPLY = 'Hello from the fake model, loud and clear.';

const WINDOWS = [
  { width: 1120, height: 780 },
  { width: 800, height: 600 },
];

/** The element is drawn wholly inside the window, with no scrolling of the page. */
async function expectInWindow(page: Page, locator: Locator, what: string): Promise<void> {
  const window = page.viewportSize()!;
  const box = await locator.boundingBox();
  expect(box, `${what} is drawn`).not.toBeNull();
  const where = `${what} in a ${window.width}×${window.height} window`;
  expect(box!.y, `${where}: top`).toBeGreaterThanOrEqual(0);
  expect(box!.x, `${where}: left`).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, `${where}: bottom`).toBeLessThanOrEqual(window.height);
  expect(box!.x + box!.width, `${where}: right`).toBeLessThanOrEqual(window.width);
}

test('loading: before the core has answered, the page says so and offers no action', async ({ page }) => {
  // /health never answers: the page must not guess a state.
  await page.route('**/health', () => undefined);
  await page.goto((await control<{ url: string }>('/login-url')).url);
  await expect(page.locator('#call-state')).toHaveText('loading…');
  await expect(page.getByRole('button', { name: 'Join voice' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Leave voice' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Schedule' })).toBeDisabled();
});

test('signed out: the page says so and Join, Leave and the other actions are disabled', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('#call-state')).toHaveText('signed out');
  await expect(page.locator('#call-detail')).toContainText('not signed in');
  for (const name of ['Join voice', 'Leave voice', 'Send', 'Schedule', 'Notify now', 'Save settings'])
    await expect(page.getByRole('button', { name, exact: true })).toBeDisabled();
});

test('the call and the newest transcript lines are in view at 1120×780 and 800×600; the box types to the model', async ({
  page,
}) => {
  await login(page);
  await expect(page.locator('#call-state')).toHaveText(/^(idle|stopped)$/);
  await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected');
  const notes = page.locator('#notes-list');

  // The box sends what is typed to the model (/say); the model's words come back as transcript.
  await page.getByRole('textbox', { name: 'Words the model says aloud, verbatim' }).fill('the window is open');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.locator('#call-status')).toHaveText('Queued: the model says it, word for word, at the next pause.');
  await expect(notes.locator('li.kind-output_transcript', { hasText: 'the window is open' })).toBeVisible({
    timeout: 20_000,
  });

  // More lines than the list holds, so "newest in view" means the list follows the end.
  const token = (await control<{ token: string }>('/token')).token;
  const lines = Array.from({ length: 9 }, (_, i) => `line number ${i + 1} of the long talk`);
  for (const text of lines) {
    const say = await page.request.get('/say?text=' + encodeURIComponent(text), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(say.status()).toBe(200);
    // One at a time, so each answer is its own line in the list.
    await expect(notes.locator('li.kind-output_transcript', { hasText: text })).toHaveCount(1, { timeout: 20_000 });
  }
  expect(await notes.evaluate((list) => list.scrollHeight > list.clientHeight)).toBe(true);
  // The owner speaks, and the fake model answers once they stop: wait for that answer, so "the
  // newest line" below is the same line at every size (it arrived mid-loop on a loaded machine).
  const replies = notes.locator('li.kind-output_transcript', { hasText: FAKE_MODEL_REPLY });
  const repliesBefore = await replies.count();
  await control('/speak');
  await expect(page.locator('#speaking')).toHaveText(/^owner/);
  await expect(replies).toHaveCount(repliesBefore + 1, { timeout: 20_000 });
  const newest = FAKE_MODEL_REPLY;

  for (const window of WINDOWS) {
    await page.setViewportSize(window);
    const size = `${window.width}×${window.height}`;
    await shootDoc(page, `call-view-${window.width}x${window.height}`);
    for (const [what, selector] of [
      ['call state', '#call-state'],
      ['who speaks', '#speaking'],
      ['input meter', '#meter-in'],
      ['output meter', '#meter-out'],
      ['Leave', '#leave-button'],
      ['box to the model', '#say-text'],
    ] as const)
      await expectInWindow(page, page.locator(selector), what);
    // The newest line ends inside the list's visible area, and the list inside the window.
    const last = notes.locator('li').last();
    await expect(last).toContainText(newest);
    await expect
      .poll(
        async () => {
          const [listBox, lastBox] = [(await notes.boundingBox())!, (await last.boundingBox())!];
          return (
            lastBox.y + lastBox.height <= listBox.y + listBox.height + 1 && listBox.y + listBox.height <= window.height
          );
        },
        { message: `newest transcript line in view (${size})` },
      )
      .toBe(true);
    await expectInWindow(page, last, `newest transcript line (${size})`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
      0,
    );
  }

  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);
});

test('when the app dies under the page, it says disconnected and every action is disabled', async ({ page }) => {
  test.setTimeout(120_000);
  const own = await startOwnHarness();
  try {
    await login(page, own.control);
    await page.getByRole('button', { name: 'Join voice' }).click();
    await expect(page.locator('#call-state')).toHaveText('connected', { timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Leave voice' })).toBeEnabled();
    await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeEnabled();

    own.process.kill('SIGKILL');
    await expect(page.locator('#call-state')).toHaveText('disconnected');
    await expect(page.locator('#call-detail')).toContainText('Lost contact');
    await expect(page.locator('#stream-status')).not.toHaveAttribute('data-link', 'live');
    for (const name of ['Join voice', 'Leave voice', 'Send', 'Schedule', 'Notify now', 'Save settings', 'Hand off'])
      await expect(page.getByRole('button', { name, exact: true })).toBeDisabled();
    await expect(page.locator('#frame-file')).toBeDisabled();
    // Nothing claims a live call: no connections, no speaker, empty meters.
    for (const fact of ['#conn-discord', '#conn-model', '#conn-dave', '#speaking'])
      await expect(page.locator(fact)).toHaveText('—');
    await expect(page.locator('#meter-in')).toHaveAttribute('aria-valuenow', '0');
    await shootDoc(page, 'call-view-disconnected');
  } finally {
    own.process.kill('SIGKILL');
  }
});

test('not set up: the page says what is missing, and Join is neither the primary action nor enabled', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const own = await startOwnHarness({ unconfigured: true });
  try {
    await login(page, own.control);
    await expect(page.locator('#call-state')).toHaveText('not set up');
    await expect(page.locator('#call-detail')).toContainText(/voice calls need .*GEMINI_API_KEY/);
    const join = page.getByRole('button', { name: 'Join voice' });
    await expect(join).toBeDisabled();
    await expect(join).not.toHaveClass(/primary/);
    await shootDoc(page, 'call-view-not-set-up');
  } finally {
    own.process.kill('SIGTERM');
  }
});
