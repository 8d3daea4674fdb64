// What became of the text sent from the say box, on the page (issue 53): "Spoken." once the reply
// was played out to Discord; "Cut off after "…" — NAME spoke." when the owner talks over it; "Not
// spoken: …" when the call ends before it was said. The line follows the `say` events on /events.
// The fake model's replies are set per test through the harness (/model-replies) and reset after.
import { expect, test, type Page } from '@playwright/test';
import { control, login } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

async function joined(page: Page): Promise<void> {
  await login(page);
  if ((await page.locator('#call-state').textContent()) !== 'connected')
    await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected', { timeout: 30_000 });
}

async function send(page: Page, text: string): Promise<void> {
  await page.locator('#say-text').fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

const outcome = (page: Page) => page.locator('#say-outcome');

test.afterEach(async () => {
  await control('/model-replies');
});

test('spoken whole: the line says "Spoken."', async ({ page }) => {
  await joined(page);
  await send(page, 'The build is green');
  await expect(outcome(page)).toHaveText('Spoken.', { timeout: 30_000 });
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'spoken');
  // The transcript says it too (so does a text sent from the CLI: the same note).
  await expect(page.locator('#notes-list')).toContainText('say from dashboard "The build is green": Spoken.');
});

test('cut by the owner: the line says the words heard and who spoke', async ({ page }) => {
  await joined(page);
  await control('/model-replies?tone_ms=5000');
  const text = 'The build is green and every test passed on the first try';
  await send(page, text);
  await expect(outcome(page)).toHaveText('Waiting: being spoken.', { timeout: 30_000 });
  // About a second of the reply plays, then the owner talks over it.
  await page.waitForTimeout(1200);
  await control('/speak');
  await expect(outcome(page)).toHaveAttribute('data-outcome', 'cut', { timeout: 20_000 });
  const line = (await outcome(page).textContent()) ?? '';
  const heard = /^Cut off after "(.+)" — (.+) spoke\.$/.exec(line);
  expect(heard, line).not.toBeNull();
  // The first words of the announcement, not all of it; the speaker by name, never an id.
  expect(text.startsWith(heard![1]!) && heard![1]!.length < text.length).toBe(true);
  expect(heard![2]).not.toMatch(/^\d{17,20}$/);
});

test('dropped at Leave: the model never says it; after Leave the line says why', async ({ page }) => {
  await joined(page);
  await control('/model-replies?speak_text=0');
  await send(page, 'Dinner is ready');
  await expect(outcome(page)).toHaveText('Waiting: handed to the model; waiting for its reply.', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(outcome(page)).toHaveText(
    'Not spoken: the call ended before the model said it (stopped from the dashboard).',
    { timeout: 20_000 },
  );
  await expect(page.locator('#notes-list')).toContainText(
    'say from dashboard "Dinner is ready": Not spoken: the call ended before the model said it',
  );
  await expect(page.locator('#call-state')).toHaveText('stopped');
});
