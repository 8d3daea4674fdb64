// Mute and push-to-talk from the dashboard, judged where it matters: /health says muted, and the
// fake model's record shows no user audio while muted and audio again after unmuting. The hold
// button works from the keyboard (Space held = talking) and its state is read out (live region).
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import type { HealthReport } from '../../main/core/api-types.ts';
import { control, login } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

async function health(page: Page): Promise<HealthReport> {
  return (await (await page.request.get('/health')).json()) as HealthReport;
}
const modelSamples = async () => (await control<{ samples: number }>('/model-audio')).samples;
const framesMuted = async (page: Page) => (await health(page)).metrics.frames_muted as number;

test('the mute button keeps a speaking owner from the model; unmute lets them through again', async ({ page }) => {
  test.setTimeout(90_000);
  await login(page);
  if ((await page.locator('#call-state').textContent()) !== 'connected') {
    await page.getByRole('button', { name: 'Join voice' }).click();
    await expect(page.locator('#call-state')).toHaveText('connected');
  }
  const mute = page.locator('#mute-button');
  const live = page.locator('#talk-state');
  await expect(live).toHaveAttribute('role', 'status');
  await expect(live).toHaveText('Live: the model hears the call.');

  await mute.click();
  await expect(mute).toHaveAttribute('aria-pressed', 'true');
  await expect(mute).toHaveText('Unmute');
  await expect(live).toHaveText('Muted: the model hears nobody.');
  expect((await health(page)).muted).toBe(true);

  // The owner talks for 3 s while muted: the bridge drops the frames, the model hears none of them.
  const samplesBefore = await modelSamples();
  const droppedBefore = await framesMuted(page);
  await control('/speak');
  await expect
    .poll(async () => (await framesMuted(page)) - droppedBefore, { timeout: 20_000 })
    .toBeGreaterThanOrEqual(140);
  await page.waitForTimeout(1000); // past the voice gate's hangover: anything let through would have arrived
  expect(await modelSamples()).toBe(samplesBefore);

  await mute.click();
  await expect(mute).toHaveAttribute('aria-pressed', 'false');
  await expect(live).toHaveText('Live: the model hears the call.');
  expect((await health(page)).muted).toBe(false);
  await control('/speak');
  await expect.poll(async () => (await modelSamples()) - samplesBefore, { timeout: 20_000 }).toBeGreaterThan(16_000);
});

test('a mute from elsewhere (CLI, tray) reaches the page through /events', async ({ page }) => {
  await login(page);
  const { token } = await control<{ token: string }>('/token');
  const mute = page.locator('#mute-button');
  await expect(mute).toHaveAttribute('aria-pressed', 'false');
  const set = (muted: boolean) =>
    page.request.post('/mute', { headers: { authorization: `Bearer ${token}` }, data: { muted } });
  expect((await set(true)).status()).toBe(200);
  await expect(mute).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('#talk-state')).toHaveText('Muted: the model hears nobody.');
  await set(false);
  await expect(mute).toHaveAttribute('aria-pressed', 'false');
});

test('push-to-talk: the hold button is keyboard-held, and /health follows it', async ({ page }) => {
  await login(page);
  const hold = page.locator('#hold-button');
  const live = page.locator('#talk-state');
  await expect(hold).toBeDisabled();
  await page.getByRole('checkbox', { name: 'Push-to-talk', exact: true }).check();
  await expect(hold).toBeEnabled();
  await expect(live).toContainText('Push-to-talk: hold');
  expect((await health(page)).talk).toEqual({ muted: false, ptt: { enabled: true, held: false }, to_model: false });

  await hold.focus();
  await page.keyboard.down('Space');
  await expect(live).toHaveText('Talking: the model hears you while you hold.');
  await expect(hold).toHaveAttribute('aria-pressed', 'true');
  expect((await health(page)).talk?.to_model).toBe(true);
  await page.keyboard.up('Space');
  await expect(live).toContainText('Push-to-talk: hold');
  expect((await health(page)).talk?.ptt.held).toBe(false);

  // Muted with push-to-talk on (every control enabled, the danger style shown): no serious axe violations.
  await page.locator('#mute-button').click();
  await expect(live).toHaveText('Muted: the model hears nobody.');
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    const results = await new AxeBuilder({ page }).include('#call-panel').analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      serious.map((v) => `${colorScheme}: ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    ).toEqual([]);
  }
  await page.locator('#mute-button').click();

  await page.getByRole('checkbox', { name: 'Push-to-talk', exact: true }).uncheck();
  await expect(live).toHaveText('Live: the model hears the call.');
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/^(stopped|idle)$/);
});
