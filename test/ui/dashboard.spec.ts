// The dashboard against a running headless core on the fakes: what a person sees and does.
import { expect, test } from '@playwright/test';
import { control, login, samplePng, shootPanel } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

test('an unsigned page says how to sign in, and the login URL signs it in', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('#banner')).toContainText('not signed in');
  await login(page);
  await expect(page.locator('#banner')).toBeHidden();
  // A used login link opened again gives a page that says how to get a fresh one.
  const { url } = await control<{ url: string }>('/login-url');
  await page.goto(url);
  const again = await page.goto(url);
  expect(again?.status()).toBe(401);
  await expect(page.locator('h1')).toHaveText('This login link was already used');
  await expect(page.locator('body')).toContainText('npx live-voice-bridge dashboard');
  expect(await again?.text()).toContain('login_expired');
});

test('call panel: join shows connected, a transcript line from the model appears live', async ({ page }) => {
  await login(page);
  const panel = page.locator('#call-panel');
  await expect(panel.locator('#call-state')).toHaveText(/^(idle|stopped)$/);
  await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(panel.locator('#call-state')).toHaveText('connected');
  await expect(page.getByRole('button', { name: 'Leave voice' })).toBeEnabled();
  await expect(panel.locator('#conn-discord')).toHaveText('connected');
  // Discord's end-to-end encryption (DAVE, the fake's default) with the voice privacy code users compare.
  await expect(panel.locator('#conn-dave')).toHaveText(/^on · epoch \d+ · code (\d{5} ){5}\d{5}$/, { timeout: 12_000 });

  // /say (as curl would send it) makes the fake model speak the text; the model's output
  // transcript streams into the notes list over /events.
  const token = (await control<{ token: string }>('/token')).token;
  const say = await page.request.get('/say?text=' + encodeURIComponent('the kettle is on'), {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(say.status()).toBe(200);
  const notes = page.locator('#notes-list');
  const modelLine = notes.locator('li.kind-output_transcript', { hasText: 'the kettle is on' });
  await expect(modelLine).toBeVisible({ timeout: 20_000 });
  await expect(modelLine.locator('.who')).toHaveText('model');
  // The owner speaks in the fake voice channel: the call panel shows it, the model answers.
  const { speaking } = await control<{ speaking: string }>('/speak');
  // Shown by Discord display name (from GET /room), marked as the owner.
  const room = await page.request.get('/room', { headers: { authorization: `Bearer ${token}` } });
  const owner = ((await room.json()) as { people: { id: string; name: string }[] }).people.find(
    (p) => p.id === speaking,
  );
  expect(owner?.name).toBeTruthy();
  await expect(panel.locator('#speaking')).toHaveText(`${owner!.name} (owner)`);
  await expect
    .poll(async () => Number(await panel.locator('#meter-in').getAttribute('aria-valuenow')))
    .toBeGreaterThan(0);
  await shootPanel(panel, 'call-speaking');
  await expect(notes.locator('li.kind-output_transcript', { hasText: 'Hello from the fake model' })).toBeVisible({
    timeout: 20_000,
  });
  await expect(notes.locator('li.kind-input_transcript', { hasText: 'hello model' })).toBeVisible();
  await expect(page.locator('#latency-plot')).toBeVisible({ timeout: 15_000 });
  await shootPanel(panel, 'call');
  await shootPanel(page.locator('#notes-panel'), 'notes');

  // Hand-off of this call's notes writes a document under the agent home.
  await page.getByRole('button', { name: 'Hand off' }).click();
  await expect(page.locator('#notes-status')).toContainText(/Hand-off written to .*handoffs\/.*\.md/);

  await page.locator('#notes-kind').selectOption('system');
  await expect(modelLine).toHaveCount(0);
  await page.locator('#notes-kind').selectOption('all');
  await page.locator('#notes-query').fill('kettle');
  await expect(notes.locator('li')).not.toHaveCount(0);
  await expect(notes.locator('li', { hasNotText: 'kettle' })).toHaveCount(0);
});

test('screenshot panel: an image through the picker reaches /frame and is accepted', async ({ page }) => {
  await login(page);
  await expect(page.locator('#call-state')).toHaveText('connected');
  await page
    .locator('#frame-file')
    .setInputFiles({ name: 'shot.png', mimeType: 'image/png', buffer: await samplePng() });
  await expect(page.locator('#frame-answer')).toContainText('Server answer: sent');
  await expect(page.locator('#frame-status')).toHaveText('The model received the image.');
  await expect(page.locator('#frame-thumb')).toHaveJSProperty('naturalWidth', 64);
  await shootPanel(page.locator('#frame-panel'), 'frame');

  // Pasting an image (Ctrl+V) takes the same path; frames may be rate-limited, so either answer is fine.
  const png = (await samplePng(32)).toString('base64');
  await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
    document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
  }, png);
  await expect(page.locator('#frame-thumb')).toHaveJSProperty('naturalWidth', 32);
  await expect(page.locator('#frame-answer')).toContainText(/Server answer: (sent|dropped)/);
});

test('schedule: create one that counts down and is delivered as a DM; cancel another', async ({ page }) => {
  await login(page);
  const form = page.locator('#schedule-form');
  await form.locator('#sched-text').fill('Tea is ready');
  await form.locator('#sched-mode').selectOption('dm');
  await form.locator('#sched-amount').fill('4');
  await form.locator('#sched-unit').selectOption('seconds');
  await form.getByRole('button', { name: 'Schedule' }).click();
  await expect(page.locator('#schedule-status')).toContainText('Scheduled for');
  const tea = page.locator('#schedule-list li', { hasText: 'Tea is ready' });
  await expect(tea.locator('.countdown')).toHaveText(/^in \d s · /);

  await form.locator('#sched-text').fill('Stand-up in ten minutes');
  await form.locator('#sched-amount').fill('10');
  await form.locator('#sched-unit').selectOption('minutes');
  await form.getByRole('button', { name: 'Schedule' }).click();
  const standup = page.locator('#schedule-list li', { hasText: 'Stand-up in ten minutes' });
  await expect(standup.locator('.countdown')).toHaveText(/^in (9|10) m/);
  await shootPanel(page.locator('#schedule-panel'), 'schedule');

  await expect(tea.locator('.badge')).toHaveText('delivered', { timeout: 20_000 });
  const { messages, ownerId } = await control<{
    messages: { dmRecipientId: string | null; content: string }[];
    ownerId: string;
  }>('/messages');
  expect(messages.some((m) => m.dmRecipientId === ownerId && m.content.includes('Tea is ready'))).toBe(true);

  await standup.getByRole('button', { name: /Cancel/ }).click();
  await expect(standup.locator('.badge')).toHaveText(/cancelled/);
  await expect(standup.getByRole('button', { name: /Cancel/ })).toHaveCount(0);
  await shootPanel(page.locator('#schedule-panel'), 'schedule-after');
});

test('notify now reports the delivery result', async ({ page }) => {
  await login(page);
  await page.locator('#sched-text').fill('Right now please');
  await page.locator('#sched-mode').selectOption('dm');
  await page.getByRole('button', { name: 'Notify now' }).click();
  await expect(page.locator('#schedule-status')).toContainText('Delivered by dm');
});

test('an MCP tool under "ask": the dashboard prompt allows it; a refused one disappears', async ({ page }) => {
  await login(page);
  const prompts = page.locator('#approvals .approval');
  const first = await control<{ response: { result: { status: string } } }>('/model-calls-echo');
  expect(first.response.result.status).toBe('awaiting_approval');
  await expect(prompts).toHaveCount(1);
  await expect(prompts.first()).toContainText('mcp_everything_echo');
  await expect(prompts.first()).toContainText('hello from the model');
  await shootPanel(page.locator('#approvals'), 'approval-prompt');
  await prompts.first().getByRole('button', { name: 'Allow' }).click();
  await expect(prompts).toHaveCount(0);
  await expect(page.locator('#notes-list li', { hasText: /mcp_everything_echo: ok \(\d+ ms\)/ })).toBeVisible({
    timeout: 20_000,
  });

  await control('/model-calls-echo');
  await expect(prompts).toHaveCount(1);
  await prompts.first().getByRole('button', { name: 'Refuse' }).click();
  await expect(prompts).toHaveCount(0);
  await expect(page.locator('#notes-list li', { hasText: 'refused by the owner' })).toBeVisible();
});

test('settings: a change persists across a reload; headless keeps secrets in the owner-only file', async ({ page }) => {
  await login(page);
  const panel = page.locator('#settings-panel');
  // The voice in force (the default here) is shown as the value, and said to come from elsewhere.
  await expect(panel.locator('#set-voice')).toHaveValue('Kore');
  await expect(panel.locator('#set-voice-hint')).toContainText('From the environment or the default.');
  await panel.locator('#set-voice').fill('Puck');
  await panel.locator('#set-sfxEnabled').uncheck();
  await panel.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.locator('#settings-status')).toContainText('Saved');
  await page.reload();
  await expect(panel.locator('#set-voice')).toHaveValue('Puck');
  await expect(panel.locator('#set-sfxEnabled')).not.toBeChecked();
  await expect(panel.locator('#secrets-note')).toBeHidden();
  await expect(panel.locator('#secret-discordBotToken')).toBeEnabled();
  await expect(panel.locator('#secret-discordBotToken + *, #secret-discordBotToken-state')).toContainText(
    /environment/,
  );
  await shootPanel(panel, 'settings');

  await panel.locator('#set-sidecarPort').fill('80');
  await panel.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.locator('#settings-status')).toHaveAttribute('data-kind', 'error');
  await expect(panel.locator('#set-sidecarPort-error')).toHaveText('Use a port number from 1024 to 65535.');
});

test('leave ends the call; the whole page fits an 800×600 window', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await login(page);
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBe(0);
  await page.screenshot({ path: 'test-results/panels/page-800x600.png' });
  await page.screenshot({ path: 'test-results/panels/page-800-full.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: 'test-results/panels/page-1280.png', fullPage: true });
});

test('past calls: after the call ended, choosing it in the notes panel shows its transcript, read back from disk', async ({
  page,
}) => {
  await login(page);
  const chooser = page.getByRole('combobox', { name: 'Which call to show' });
  await chooser.focus(); // refreshes the list from GET /calls
  const pastCall = chooser.locator('option', { hasText: /^Call · / }).first();
  await expect(pastCall).toHaveCount(1, { timeout: 10_000 });
  await chooser.selectOption({ value: (await pastCall.getAttribute('value'))! });
  const notes = page.locator('#notes-list');
  await expect(notes.locator('li.kind-output_transcript', { hasText: 'the kettle is on' })).toBeVisible();
  await expect(page.locator('#notes-status')).toContainText('Showing a past call');
  await chooser.selectOption({ value: '' });
  await expect(page.locator('#notes-status')).toBeHidden();
});
