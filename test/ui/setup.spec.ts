// First run from zero to a call inside the app: a core with nothing configured (no bot token, owner
// or model key) on the fakes. The dashboard opens /setup, each credential is tested against the fake
// service (which answers as Discord and Gemini do), the owner is picked by name, Save and
// "Restart now" bring up a configured core, and Join becomes the primary action.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { control, shootDoc, startOwnHarness } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

let own: { control: string; process: ChildProcess };
let credentials: { botToken: string; geminiKey: string; owner: { id: string; name: string }; voiceChannel: string };

test.beforeAll(async () => {
  test.setTimeout(120_000);
  own = await startOwnHarness({ firstRun: true });
  credentials = await control('/credentials', own.control);
});

test.afterAll(() => {
  own?.process.kill('SIGTERM');
});

async function openSetup(page: Page): Promise<void> {
  const { url } = await control<{ url: string }>('/login-url', own.control);
  await page.goto(url);
  // Unconfigured, the dashboard sends a new tab to the setup page by itself.
  await expect(page).toHaveURL(/\/setup$/);
}

const scenario = (name: string) => control(`/setup-scenario?name=${name}`, own.control);

test('unconfigured: the dashboard opens /setup, which says what is missing and passes axe', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openSetup(page);
  await expect(page.locator('#setup-summary')).toHaveText(
    'Still missing: the Discord bot token, the owner (your Discord account), the Gemini API key.',
  );
  await expect(page.locator('#setup-token-state')).toHaveText('Not set.');
  // Headless has no keychain: secrets go to the owner-only settings file, so saving is allowed.
  await expect(page.locator('#setup-secrets-note')).toBeHidden();
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      serious.map((v) => `${colorScheme}: ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    ).toEqual([]);
  }
});

test('a wrong bot token is rejected in plain words, and a too-short one is marked at the field', async ({ page }) => {
  await openSetup(page);
  await page.locator('#setup-token').fill(`${credentials.botToken}x`);
  await page.getByRole('button', { name: 'Test Discord' }).click();
  await expect(page.locator('#discord-checks li[data-step="token"]')).toHaveText(/Discord rejected the token/);
  await expect(page.locator('#discord-checks li[data-step="token"]')).toHaveAttribute('data-ok', 'false');

  await page.locator('#setup-token').fill('short');
  await page.getByRole('button', { name: 'Test Discord' }).click();
  await expect(page.locator('#setup-token-error')).toHaveText(
    'That is 5 characters; a bot token is about 70 (three parts joined by dots): copy it again from Bot → Reset Token.',
  );
  await expect(page.locator('#setup-token')).toHaveAttribute('aria-invalid', 'true');
});

test('bot not in a server: says so and offers an invite with exactly Connect, Speak and Send Messages', async ({
  page,
}) => {
  await scenario('bot-not-in-server');
  try {
    await openSetup(page);
    await page.locator('#setup-token').fill(credentials.botToken);
    await page.getByRole('button', { name: 'Test Discord' }).click();
    await expect(page.locator('#discord-checks li[data-step="token"]')).toHaveAttribute('data-ok', 'true');
    await expect(page.locator('#discord-checks li[data-step="server"]')).toHaveText(/is in no server yet/);
    const invite = page.locator('#invite-link');
    // Connect (1 << 20) + Speak (1 << 21) + Send Messages (1 << 11) = 3147776.
    await expect(invite).toHaveAttribute(
      'href',
      /^https:\/\/discord\.com\/oauth2\/authorize\?client_id=\d{17,20}&scope=bot&permissions=3147776$/,
    );
  } finally {
    await scenario('ready');
  }
});

test('missing permission: the owner picked by name, the check names the permission the channel denies', async ({
  page,
}) => {
  await scenario('missing-permission');
  try {
    await openSetup(page);
    await page.locator('#setup-token').fill(credentials.botToken);
    await page.getByRole('button', { name: 'Test Discord' }).click();
    // No owner yet: the list of people the bot can see is offered.
    await expect(page.locator('#discord-checks li[data-step="server"]')).toHaveText(/Pick the owner/);
    await page.locator('#setup-owner').selectOption({ label: credentials.owner.name });
    await expect(page.locator('#setup-owner-id')).toHaveValue(credentials.owner.id);
    await page.getByRole('button', { name: 'Test Discord' }).click();
    await expect(page.locator('#discord-checks li[data-step="server"]')).toHaveAttribute('data-ok', 'true');
    await expect(page.locator('#discord-checks li[data-step="permissions"]')).toHaveText(
      `In ${credentials.voiceChannel} the bot lacks Speak. Allow them for the bot's role in the channel's settings, or re-invite it with the link.`,
    );
  } finally {
    await scenario('ready');
  }
});

test('good token and a wrong then right key: every check passes, the model that answered is named', async ({
  page,
}) => {
  await openSetup(page);
  await page.locator('#setup-token').fill(credentials.botToken);
  await page.locator('#setup-owner-id').fill(credentials.owner.id);
  await page.getByRole('button', { name: 'Test Discord' }).click();
  await expect(page.locator('#discord-checks li[data-ok="true"]')).toHaveCount(3);
  await expect(page.locator('#discord-checks li[data-step="permissions"]')).toHaveText(
    `The bot may Connect, Speak and Send Messages in ${credentials.voiceChannel}.`,
  );
  // Channels by name from what the bot sees.
  await expect(page.locator('#setup-voice option', { hasText: credentials.voiceChannel })).toHaveCount(1);

  await page.locator('#setup-key').fill(`${credentials.geminiKey}-wrong`);
  await page.getByRole('button', { name: 'Test key' }).click();
  await expect(page.locator('#model-result')).toHaveText(/^Gemini rejected the key\./);
  await expect(page.locator('#model-result')).toHaveAttribute('data-kind', 'error');
  await expect(page.locator('body')).not.toContainText(credentials.geminiKey);

  await page.locator('#setup-key').fill(credentials.geminiKey);
  await page.getByRole('button', { name: 'Test key' }).click();
  await expect(page.locator('#model-result')).toHaveText(/^Gemini answered with gemini-[\w.-]+\.$/);
  await page.setViewportSize({ width: 1280, height: 800 });
  await shootDoc(page, 'setup');
});

test('save, then Restart now: the core comes back configured and Join is the primary action', async ({ page }) => {
  test.setTimeout(90_000);
  await openSetup(page);
  await page.locator('#setup-token').fill(credentials.botToken);
  await page.locator('#setup-owner-id').fill(credentials.owner.id);
  await page.locator('#setup-key').fill(credentials.geminiKey);
  // The voice channel picked by name from what the bot sees; saved as its id.
  await page.getByRole('button', { name: 'Test Discord' }).click();
  await page.locator('#setup-voice').selectOption({ label: credentials.voiceChannel });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#setup-summary')).toHaveText('Everything is saved; restart to use it.');
  // Secrets are never echoed: only their state.
  await expect(page.locator('#setup-token-state')).toHaveText('Saved.');
  await expect(page.locator('#setup-token')).toHaveValue('');
  await page.getByRole('button', { name: 'Restart now' }).click();
  await expect(page.locator('#setup-status')).toHaveText(
    'Restarted with the new settings. Back to the dashboard to join a call.',
    { timeout: 30_000 },
  );
  await expect(page.locator('#setup-summary')).toHaveText(
    'Everything a call needs is set. Test again or change anything below.',
  );

  const saved = (await (await page.request.get(`${new URL(page.url()).origin}/settings`)).json()) as {
    values: Record<string, unknown>;
    effective: Record<string, unknown>;
  };
  expect(saved.values).toMatchObject({
    ownerId: credentials.owner.id,
    voiceChannelId: expect.stringMatching(/^\d{17,20}$/),
  });
  expect(saved.effective.voiceChannelId).toBe(saved.values.voiceChannelId);
  expect(JSON.stringify(saved)).not.toContain(credentials.botToken);

  await page.getByRole('link', { name: 'Back to the dashboard' }).click();
  const join = page.getByRole('button', { name: 'Join voice' });
  await expect(join).toBeEnabled();
  await expect(join).toHaveClass(/primary/);
  await expect(page.locator('#setup-link')).toBeHidden();
});
