// A page a newcomer can trust (issue 43): no "Live" without a call, controls that cannot act say
// why, nothing in the call panel cut off at 800–1280 px (dark and light), a muted call that cannot
// be missed (crossed-out microphone, red, the `M` key), a "stop talking" button, the model's state
// at a glance, and Undo of a cancelled repeating reminder bringing back the series.
import { expect, test, type Page } from '@playwright/test';
import type { HealthReport, ScheduledNotification } from '../../main/core/api-types.ts';
import { control, login, shootDoc, startOwnHarness } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

const WINDOWS = [
  { width: 800, height: 600 },
  { width: 1120, height: 780 },
  { width: 1280, height: 800 },
];

const NO_CALL_LIVE = 'Live: the model hears the call.';

async function joined(page: Page): Promise<void> {
  await login(page);
  if (!(await page.locator('#call-state').textContent())?.startsWith('connected')) {
    await page.getByRole('button', { name: 'Join voice' }).click();
    await expect(page.locator('#call-state')).toHaveText('connected', { timeout: 30_000 });
  }
}

/** Every value in the call panel that is cut off (its text wider than its box), by id. */
async function truncatedValues(page: Page): Promise<string[]> {
  return page
    .locator('#call-panel')
    .evaluate((panel) =>
      [...panel.querySelectorAll<HTMLElement>('.facts dd, #call-state, #call-detail, #talk-state, #muted-mark')]
        .filter((el) => el.offsetParent !== null && el.scrollWidth > el.clientWidth)
        .map((el) => `${el.id || el.tagName}: "${el.textContent}" (${el.scrollWidth} > ${el.clientWidth})`),
    );
}

test('no value in the call panel is cut off at 800×600, 1120×780 and 1280×800, dark and light; today’s cost is shown at every width', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await joined(page);
  // The privacy code and the model appear once the call is up; a reply makes usage count tokens.
  await expect(page.locator('#conn-dave')).toHaveText(/code/, { timeout: 15_000 });
  await expect(page.locator('#usage-line')).toContainText('today', { timeout: 15_000 });
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const window of WINDOWS) {
      await page.setViewportSize(window);
      const where = `${window.width}×${window.height} ${scheme}`;
      await expect.poll(() => truncatedValues(page), { message: `cut-off values at ${where}` }).toEqual([]);
      for (const id of ['#usage-line', '#conn-model', '#conn-dave'])
        await expect(page.locator(id), `${id} at ${where}`).toBeVisible();
      await expect(page.locator('#usage-line')).toContainText(/today ≈ \$\d/);
      if (scheme === 'dark') {
        // The connection facts and usage at the column's end, in the picture.
        await page.locator('#usage-line').scrollIntoViewIfNeeded();
        await shootDoc(page, `call-panel-${window.width}x${window.height}`);
      }
    }
  }
  await page.emulateMedia({ colorScheme: 'dark' });
});

test('a muted call cannot be missed: crossed-out microphone, red badge, the M key, and back', async ({ page }) => {
  await joined(page);
  await page.setViewportSize({ width: 1120, height: 780 });
  const badge = page.locator('#call-state');
  const mark = page.locator('#muted-mark');
  await expect(mark).toBeHidden();
  await expect(badge).toHaveText('connected');

  await page.keyboard.press('m');
  await expect(mark).toBeVisible();
  await expect(mark).toHaveAccessibleName('Muted');
  await expect(badge).toHaveText('connected · muted');
  await expect(badge).toHaveAttribute('data-state', 'muted');
  await expect(page.locator('#mute-button')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('#mute-button .icon-off')).toBeVisible();
  await expect(page.locator('#talk-state')).toHaveText('Muted: the model hears nobody.');
  // The badge is red (the error colour), not the connected green.
  const colours = await page.evaluate(() => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--err)';
    document.body.append(probe);
    const err = getComputedStyle(probe).color;
    probe.remove();
    return {
      badge: getComputedStyle(document.getElementById('call-state')!).color,
      mark: getComputedStyle(document.getElementById('muted-mark')!).color,
      err,
    };
  });
  expect(colours.badge).toBe(colours.err);
  expect(colours.mark).toBe(colours.err);
  expect((await (await page.request.get('/health')).json()).talk.muted).toBe(true);
  await shootDoc(page, 'call-view-muted');

  // M typed into a text box is text, not a shortcut.
  await page.locator('#say-text').press('m');
  await expect(badge).toHaveText('connected · muted');
  await page.locator('#say-text').fill('');
  await page.locator('#say-text').blur();

  await page.keyboard.press('M');
  await expect(mark).toBeHidden();
  await expect(badge).toHaveText('connected');
  await expect(page.locator('#talk-state')).toHaveText(NO_CALL_LIVE);
});

test('the model’s state at a glance, and "Stop talking" cuts the model off', async ({ page }) => {
  test.setTimeout(90_000);
  await joined(page);
  const activity = page.locator('#model-activity');
  await expect(activity).toHaveText('listening');
  const stop = page.getByRole('button', { name: 'Stop talking' });
  await expect(stop).toBeEnabled();
  // The owner talks; the fake model answers with speech.
  const interrupts = async () =>
    ((await (await page.request.get('/health')).json()) as HealthReport).metrics.interrupts as number;
  const before = await interrupts();
  await control('/speak');
  await expect(activity).toHaveText('speaking', { timeout: 30_000 });
  await stop.click();
  await expect(page.locator('#call-status')).toHaveText('Stopped: the model stopped talking.');
  // The core cut the reply: one interruption counted, and the model's voice falls silent.
  expect(await interrupts()).toBe(before + 1);
  await expect(page.locator('#meter-out')).toHaveAttribute('aria-valuenow', '0', { timeout: 10_000 });
  await expect(activity).toHaveText('listening', { timeout: 10_000 });
});

test('after Leave the page never says Live, and Mute, push-to-talk and Stop talking wait with a reason', async ({
  page,
}) => {
  await joined(page);
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/^(idle|stopped)$/);
  const talk = page.locator('#talk-state');
  await expect(talk).not.toHaveText(NO_CALL_LIVE);
  await expect(talk).toHaveText('No call: nobody is heard. Mute and push-to-talk apply once you join.');
  await expect(page.locator('#mute-button')).toBeDisabled();
  await expect(page.getByRole('checkbox', { name: 'Push-to-talk', exact: true })).toBeDisabled();
  await expect(page.locator('#hold-button')).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Stop talking' })).toBeDisabled();
  await expect(page.locator('#model-activity')).toHaveText('—');
  await expect(page.locator('#muted-mark')).toBeHidden();
  // The core agrees: nothing to interrupt.
  const { token } = await control<{ token: string }>('/token');
  const interrupt = await page.request.post('/interrupt', { headers: { authorization: `Bearer ${token}` }, data: {} });
  expect(interrupt.status()).toBe(409);
  expect((await interrupt.json()).error.code).toBe('no_call');
  await shootDoc(page, 'call-view-after-leave');
});

test('before setup the page never says Live, and the talk controls wait with a reason', async ({ page }) => {
  test.setTimeout(120_000);
  const own = await startOwnHarness({ unconfigured: true });
  try {
    await login(page, own.control);
    await expect(page.locator('#call-state')).toHaveText('not set up');
    const talk = page.locator('#talk-state');
    await expect(talk).toHaveText('No call: set up first; Mute and push-to-talk apply in a call.');
    await expect(talk).not.toHaveText(NO_CALL_LIVE);
    await expect(page.locator('#mute-button')).toBeDisabled();
    await expect(page.getByRole('checkbox', { name: 'Push-to-talk', exact: true })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Stop talking' })).toBeDisabled();
    await shootDoc(page, 'call-view-before-setup');
  } finally {
    own.process.kill('SIGTERM');
  }
});

test('settings are grouped, with a provider drop-down, switches, and the values in force shown as values', async ({
  page,
}) => {
  await login(page);
  const panel = page.locator('#settings-panel');
  const legends = await panel.locator('#settings-fields fieldset > legend').allTextContents();
  expect(legends).toEqual(['Call and model', 'Turns and quiet', 'Discord', 'Cost', 'Storage and limits']);
  // Each group holds a handful, not 25 fields in one heap.
  for (const legend of legends)
    expect(
      await panel
        .locator('fieldset', { has: page.locator('legend', { hasText: legend }) })
        .locator('.field')
        .count(),
    ).toBeLessThanOrEqual(8);
  const provider = panel.getByRole('combobox', { name: 'Live model provider' });
  await expect(provider).toHaveValue('gemini');
  // The registry's providers, each with what it cannot do (renderer/settings-panel.ts providerChoiceLabel).
  expect(await provider.locator('option').allTextContents()).toEqual([
    'Gemini Live',
    'OpenAI Realtime',
    'OpenAI GPT-Live (no images; persona changes from the next call)',
    'xAI Grok Voice (no images)',
  ]);
  await expect(panel.getByRole('switch', { name: 'Notification sound in the call' })).toBeVisible();
  await expect(panel.getByRole('switch', { name: 'Start in push-to-talk mode' })).toBeVisible();
  // The push-to-talk setting names the one-key default talk key.
  await expect(panel.locator('#set-pttMode-hint')).toContainText('Scroll Lock');
  // The owner id in force is a value, not a grey placeholder.
  const owner = panel.locator('#set-ownerId');
  await expect(owner).not.toHaveValue('');
  await expect(owner).not.toHaveAttribute('placeholder', /\d/);
  await shootDoc(panel, 'settings-grouped');
});

test.describe('a viewer in another time zone', () => {
  test.use({ timezoneId: 'Europe/London' });

  test('a repeating reminder names its zone; Undo after cancelling it restores the series, not a one-off', async ({
    page,
  }) => {
    await login(page);
    const { token } = await control<{ token: string }>('/token');
    const auth = { authorization: `Bearer ${token}` };
    const text = `Stand-up ${Date.now()}`;
    const created = await page.request.post('/schedule', {
      headers: auth,
      data: { text, mode: 'dm', repeat: 'weekdays', at: '09:55', timezone: 'Asia/Tokyo' },
    });
    expect(created.status()).toBe(201);
    const first = ((await created.json()) as { entry: ScheduledNotification }).entry;
    await page.reload();
    await expect(page.locator('#stream-status')).toHaveAttribute('data-link', 'live');

    // The panel names the zone its own times are in.
    await expect(page.locator('#schedule-zone')).toHaveText('Times in Europe/London');
    const row = page.locator('#schedule-list li[data-state="scheduled"]', { hasText: text });
    // Both times named: the rule's zone, and the viewer's own time with its zone.
    await expect(row.locator('.repeat')).toHaveText(
      /^repeats weekdays 09:55 Asia\/Tokyo · next: \d{4}-\d\d-\d\d 09:55 Asia\/Tokyo \(\d{4}-\d\d-\d\d 00:55 Europe\/London your time\)$/,
    );

    await row.getByRole('button', { name: /Cancel/ }).click();
    await expect(page.locator('#schedule-list li[data-state="scheduled"]', { hasText: text })).toHaveCount(0);
    await page.locator('#toasts').getByRole('button', { name: 'Undo' }).click();
    await expect(page.locator('#schedule-status')).toContainText('Restored: repeats weekdays 09:55 Asia/Tokyo');
    await expect(row.locator('.repeat')).toHaveText(
      /^repeats weekdays 09:55 Asia\/Tokyo · next: \d{4}-\d\d-\d\d 09:55 Asia\/Tokyo \(\d{4}-\d\d-\d\d 00:55 Europe\/London your time\)$/,
    );
    await shootDoc(page.locator('#schedule-panel'), 'schedule-repeat-undo');

    // What the core holds: a series again, the same rule, zone and next time (not a one-off).
    const list = (await (await page.request.get('/schedule?state=scheduled', { headers: auth })).json()) as {
      entries: ScheduledNotification[];
    };
    const restored = list.entries.filter((e) => e.text === text);
    expect(restored).toHaveLength(1);
    expect(restored[0]!.id).not.toBe(first.id);
    expect(restored[0]!.repeat).toMatchObject({ rule: 'weekdays', cron: '55 9 * * 1-5', timezone: 'Asia/Tokyo' });
    // The same next time (give or take the request's own trip).
    expect(restored[0]!.fire_at_epoch).toBeGreaterThanOrEqual(first.fire_at_epoch - 0.05);
    expect(restored[0]!.fire_at_epoch).toBeLessThan(first.fire_at_epoch + 1);
    await page.request.delete(`/schedule/${restored[0]!.id}`, { headers: auth });
  });
});
