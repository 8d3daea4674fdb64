// The dashboard as a newcomer first sees it (issue 53), at 800×600 and 1280×800: no console error on
// load (the icon sprite's style is a stylesheet rule, not an inline style the CSP blocks), nothing
// above the header, no label cut to "…", the header pill and Capture right with no call, the
// primary button following the call, Settings one click from the header, the Room card named in
// words, one date format; and /setup on a configured core showing what is configured.
// Screenshots: docs/screenshots/dashboard-800x600.png, dashboard-1280x800.png, setup-configured.png.
import { expect, test, type Page } from '@playwright/test';
import { control, login, shootDoc } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

const WINDOWS = [
  { width: 800, height: 600 },
  { width: 1280, height: 800 },
];

/** `2026-12-02 09:00 Europe/Berlin`, seconds only when not :00 (renderer/moment-format.ts). */
const MOMENT = /\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? [A-Za-z_]+(\/[A-Za-z_+-]+)*/;

/** Console errors and uncaught page errors from here on (a CSP refusal is one). */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** Every visible label on the page whose text is wider than its box (cut off), and placeholders wider than their field. */
async function truncatedLabels(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const cut: string[] = [];
    // Visible to a reader (a label kept for screen readers only is 1 px wide on purpose).
    const shown = (el: HTMLElement) =>
      (el.offsetParent !== null || getComputedStyle(el).position === 'fixed') && !el.closest('.visually-hidden');
    const labels =
      'label, button, .button, .pill, .badge, dt, dd, h1, h2, legend, .notes .who, .notes time, .room-list strong, .room-list span, .top-links a';
    for (const el of document.querySelectorAll<HTMLElement>(labels)) {
      if (shown(el) && el.scrollWidth > el.clientWidth + 1)
        cut.push(
          `${el.id || el.className || el.tagName}: "${el.textContent?.trim()}" (${el.scrollWidth} > ${el.clientWidth})`,
        );
    }
    const canvas = document.createElement('canvas').getContext('2d')!;
    for (const input of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
      'input[placeholder], textarea[placeholder]',
    )) {
      if (!shown(input) || !input.placeholder) continue;
      const style = getComputedStyle(input);
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = input.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
      const width = canvas.measureText(input.placeholder).width;
      if (width > room + 1)
        cut.push(`${input.id} placeholder: "${input.placeholder}" (${Math.ceil(width)} > ${Math.floor(room)})`);
    }
    return cut;
  });
}

async function authHeaders(): Promise<Record<string, string>> {
  return { authorization: `Bearer ${(await control<{ token: string }>('/token')).token}` };
}

test('with no call: no console error, nothing above the header, the pill says so, Capture waits with a reason, Join is primary', async ({
  page,
}) => {
  for (const viewport of WINDOWS) {
    await page.setViewportSize(viewport);
    const errors = collectErrors(page);
    await login(page);
    await expect(page.locator('#call-state')).toHaveText(/^(idle|stopped)$/);
    const size = `${viewport.width}×${viewport.height}`;
    expect(errors, size).toEqual([]);
    // The header is the first thing on the page: no strip above it.
    expect(await page.locator('header.topbar').evaluate((el) => el.getBoundingClientRect().top), size).toBe(0);
    expect(
      await page.evaluate(() => document.elementFromPoint(window.innerWidth / 2, 2)?.closest('header') !== null),
      size,
    ).toBe(true);
    // The pill names the call's state; a stopped bridge is not "live".
    await expect(page.locator('#stream-status')).toHaveText('not in a call');
    const capture = page.getByRole('button', { name: 'Capture screen' });
    await expect(capture).toBeDisabled();
    await expect(page.locator('#frame-file')).toBeDisabled();
    await expect(page.locator('#frame-waits')).toHaveText(
      'No call: join voice first; a screenshot goes to the model during a call.',
    );
    await expect(page.getByRole('button', { name: 'Join voice' })).toHaveClass(/primary/);
    await expect(page.getByRole('button', { name: 'Leave voice' })).not.toHaveClass(/primary/);
    expect(await truncatedLabels(page), size).toEqual([]);
  }
});

test('in a call: the pill, Capture and the primary button follow; speaker labels and dates are whole; the Room card reads in words', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await login(page);
  await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected', { timeout: 30_000 });
  await expect(page.locator('#stream-status')).toHaveText('in a call');
  await expect(page.getByRole('button', { name: 'Capture screen' })).toBeEnabled();
  await expect(page.locator('#frame-waits')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Leave voice' })).toHaveClass(/primary/);
  await expect(page.getByRole('button', { name: 'Join voice' })).not.toHaveClass(/primary/);

  // A line from the CLI ("cli · announce") and the owner speaking: labels that were cut to "cli · ann…".
  const announce = await page.request.post('/announce', {
    headers: await authHeaders(),
    data: { text: 'The build is green', source: 'cli' },
  });
  expect(announce.ok()).toBe(true);
  const notes = page.locator('#notes-list');
  await expect(notes.locator('li .who', { hasText: 'cli · announce' })).toBeVisible({ timeout: 20_000 });
  // The fake model answers the owner once they stop (test/ui/harness.ts); the live list also holds
  // the lines of earlier calls today, so wait for one more answer than it had.
  const answers = notes.locator('li.kind-output_transcript', { hasText: 'Hello from the fake model' });
  const before = await answers.count();
  await control('/speak');
  await expect(answers).toHaveCount(before + 1, { timeout: 20_000 });
  // Every line is dated the page's one way.
  for (const time of await notes.locator('time').allTextContents())
    expect(time).toMatch(new RegExp(`^${MOMENT.source}$`));
  await expect(page.locator('#call-detail')).toHaveText(new RegExp(`^In a call since ${MOMENT.source}\\.$`));

  // The Room card: tools in words (no internal names), and as tall as what it holds (not stretched beside a long card).
  const roomPanel = page.locator('#room-panel');
  await expect(roomPanel.locator('#room-list li').first()).toBeVisible();
  await expect(roomPanel).not.toContainText(/local_|mcp_|_schedule|_execute/);
  const spare = await roomPanel.evaluate((card) => {
    // The last child the card shows: a hidden status line (display: none) has no box to measure.
    const shown = [...card.children].filter((child) => child.getClientRects().length > 0);
    const last = shown[shown.length - 1]!.getBoundingClientRect().bottom;
    return card.getBoundingClientRect().bottom - last;
  });
  expect(spare).toBeLessThan(40);

  for (const viewport of WINDOWS) {
    await page.setViewportSize(viewport);
    const size = `${viewport.width}×${viewport.height}`;
    expect(await truncatedLabels(page), size).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shootDoc(page, `dashboard-${viewport.width}x${viewport.height}`);
  }
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);
  await expect(page.locator('#stream-status')).toHaveText('not in a call');
});

test('Settings is one click from the header at both sizes; owner and channels are picked by name', async ({ page }) => {
  for (const viewport of WINDOWS) {
    await page.setViewportSize(viewport);
    await login(page);
    const settings = page.locator('#settings-panel');
    await expect(settings).not.toBeInViewport();
    await page.locator('header').getByRole('link', { name: 'Settings' }).click();
    await expect(settings.getByRole('heading', { name: 'Settings' })).toBeInViewport();
  }
  const panel = page.locator('#settings-panel');
  const credentials = await control<{ owner: { id: string; name: string } }>('/credentials');
  const owner = panel.getByRole('combobox', { name: 'Owner (you)' });
  await expect(owner).toHaveValue(credentials.owner.id);
  await expect(owner.locator('option:checked')).toHaveText(credentials.owner.name);
  await expect(
    panel.getByRole('combobox', { name: 'Text channel for notifications' }).locator('option:checked'),
  ).toHaveText('general');
  await expect(panel.getByRole('combobox', { name: 'Voice channel' }).locator('option')).toContainText([
    'Follow the owner',
  ]);
  // A secret not saved here says where it comes from (the harness passes it in the environment).
  await expect(panel.locator('#secret-discordBotToken-state')).toHaveText(
    'Set by the environment variable DISCORD_BOT_TOKEN. Type to replace it here.',
  );
});

test('/setup on a configured core: the configured owner and channel by name, where the token comes from, a link to the portal', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const errors = collectErrors(page);
  await login(page);
  await page.goto('/setup');
  await expect(page.locator('#setup-summary')).toHaveText(
    'Everything a call needs is set. Test again or change anything below.',
  );
  const credentials = await control<{ owner: { name: string } }>('/credentials');
  // Without pressing Test Discord: the core asks Discord for the names of what is configured.
  await expect(page.locator('#setup-owner option:checked')).toHaveText(credentials.owner.name);
  await expect(page.locator('#setup-text option:checked')).toHaveText('general');
  // The harness passes the token in the process environment (there is no .env): the page says so.
  await expect(page.locator('#setup-token-state')).toHaveText(
    'Set by the environment variable DISCORD_BOT_TOKEN. Saving one here takes its place.',
  );
  await expect(page.getByRole('link', { name: 'discord.com/developers' })).toHaveAttribute(
    'href',
    'https://discord.com/developers/applications',
  );
  // Typing a token replaces what the line under it said; emptying the box brings it back.
  await page.locator('#setup-token').fill('something typed');
  await expect(page.locator('#setup-token-state')).toHaveText('');
  await page.locator('#setup-token').fill('');
  await expect(page.locator('#setup-token-state')).toContainText('Set by the environment');
  expect(errors).toEqual([]);
  await page.locator('#setup-token').blur();
  await shootDoc(page, 'setup-configured');
});
