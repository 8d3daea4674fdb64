// Settings that apply live and the ones that need "Restart now", against a configured headless core
// on the fakes: a voice change reaches the fake model's next session setup without a restart; a
// made-up voice and an out-of-range port are refused next to their fields in plain words; a
// restart-only change is offered "Restart now", which brings the core back with it.
import { expect, test } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { control, login, startOwnHarness } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

let own: { control: string; process: ChildProcess };

test.beforeAll(async () => {
  test.setTimeout(120_000);
  own = await startOwnHarness();
});

test.afterAll(() => {
  own?.process.kill('SIGTERM');
});

const modelSetups = () => control<{ voices: (string | null)[]; instructions: string[] }>('/model-setups', own.control);
const modelVoices = async () => (await modelSetups()).voices;

test('a voice change applies at the next call without a restart; a made-up voice is refused at the field', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await login(page, own.control);
  const panel = page.locator('#settings-panel');
  await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected');
  expect((await modelVoices()).at(-1)).toBe('Kore');

  await panel.locator('#set-voice').fill('NoSuchVoice');
  await panel.getByRole('button', { name: 'Save settings' }).click();
  await expect(panel.locator('#set-voice-error')).toHaveText(
    /^There is no voice called "NoSuchVoice" for gemini\. Choose one of: Zephyr, Puck, /,
  );
  await expect(panel.locator('#set-voice')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#settings-status')).toHaveText('Not saved: please correct the fields marked in red.');

  await panel.locator('#set-voice').fill('puck');
  await panel.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.locator('#settings-status')).toHaveText('Saved. Applies at the next call, no restart needed.');
  await expect(panel.locator('#set-voice')).toHaveValue('Puck');
  await expect(page.getByRole('button', { name: 'Restart now' })).toBeHidden();

  // The next call's model session asks for the new voice: what the fake model heard in its setup.
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);
  await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected');
  expect((await modelVoices()).at(-1)).toBe('Puck');
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);
});

test('a persona file applies at the next call too', async ({ page }) => {
  test.setTimeout(90_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-persona-'));
  const persona = path.join(dir, 'persona.txt');
  writeFileSync(persona, 'You are the lighthouse keeper persona of the live settings test.');
  try {
    await login(page, own.control);
    const panel = page.locator('#settings-panel');
    await panel.locator('#set-personaFile').fill(persona);
    await panel.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.locator('#settings-status')).toHaveText('Saved. Applies at the next call, no restart needed.');
    await page.getByRole('button', { name: 'Join voice' }).click();
    await expect(page.locator('#call-state')).toHaveText('connected');
    expect((await modelSetups()).instructions.at(-1)).toContain('lighthouse keeper persona');
    await page.getByRole('button', { name: 'Leave voice' }).click();
    await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ids are shown with their Discord names; an out-of-range port is explained next to the field, not as schema text', async ({
  page,
}) => {
  await login(page, own.control);
  const panel = page.locator('#settings-panel');
  // The owner and the text channel come from the environment as ids; once Discord answers they are picked by name.
  await expect(panel.getByRole('combobox', { name: 'Owner (you)' }).locator('option:checked')).toHaveText('owner');
  await expect(
    panel.getByRole('combobox', { name: 'Text channel for notifications' }).locator('option:checked'),
  ).toHaveText('general');
  await panel.locator('#set-sidecarPort').fill('80');
  await panel.getByRole('button', { name: 'Save settings' }).click();
  await expect(panel.locator('#set-sidecarPort-error')).toHaveText('Use a port number from 1024 to 65535.');
  await expect(page.locator('#settings-status')).toHaveAttribute('data-kind', 'error');
  await expect(page.locator('#settings-panel')).not.toContainText('sidecarPort');
  await expect(page.locator('#settings-panel')).not.toContainText('expected number');
});

test('a restart-only change offers Restart now, which brings the core back using it', async ({ page }) => {
  test.setTimeout(90_000);
  await login(page, own.control);
  const panel = page.locator('#settings-panel');
  await panel.locator('#set-notesRetentionDays').fill('30');
  await panel.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.locator('#settings-status')).toHaveText('Saved. Some changes need a restart.');
  const origin = new URL(page.url()).origin;
  const settings = async () =>
    (await (await page.request.get(`${origin}/settings`)).json()) as {
      pendingRestart: string[];
      effective: { notesRetentionDays: number };
    };
  expect(await settings()).toMatchObject({
    pendingRestart: ['notesRetentionDays'],
    effective: { notesRetentionDays: 90 },
  });

  await page.getByRole('button', { name: 'Restart now' }).click();
  await expect(page.locator('#settings-status')).toHaveText('Restarting…');
  // The same sign-in works against the restarted core, which now runs with the saved value.
  await expect
    .poll(async () => (await settings().catch(() => null))?.effective.notesRetentionDays, { timeout: 30_000 })
    .toBe(30);
  expect((await settings()).pendingRestart).toEqual([]);
  await expect(page.locator('#stream-status')).toHaveAttribute('data-link', 'live', { timeout: 30_000 });
});

test('Restart now with a saved port another program holds says why at once, and the core goes on', async ({ page }) => {
  test.setTimeout(60_000);
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const taken = (holder.address() as net.AddressInfo).port;
  try {
    await login(page, own.control);
    const panel = page.locator('#settings-panel');
    await panel.locator('#set-sidecarPort').fill(String(taken));
    await panel.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.locator('#settings-status')).toHaveText('Saved. Some changes need a restart.');
    await page.getByRole('button', { name: 'Restart now' }).click();
    await expect(page.locator('#settings-status')).toContainText(
      `The saved settings were not applied: the saved sidecar port ${taken}`,
      { timeout: 10_000 },
    );
    await expect(page.locator('#settings-status')).toContainText('another program is using it');
    await expect(page.locator('#settings-status')).toHaveAttribute('data-kind', 'error');
    await expect(page.getByRole('button', { name: 'Restart now' })).toBeVisible();
    // The core never stopped: this page's address still answers.
    const origin = new URL(page.url()).origin;
    expect((await page.request.get(`${origin}/health`)).status()).toBe(200);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
