// The room view: who is in the call's voice channel, who is speaking, and who may make the model
// do what, as the dashboard shows it (screenshot in docs/screenshots/room-view.png).
import { expect, test } from '@playwright/test';
import { control, login, shootDoc } from './fixtures.ts';

test('the room lists the owner (speaking) and a guest who joined, with what each may do', async ({ page }) => {
  await login(page);
  if (!/^connected$/.test((await page.locator('#call-state').textContent()) ?? '')) {
    await page.getByRole('button', { name: 'Join voice' }).click();
    await expect(page.locator('#call-state')).toHaveText('connected');
  }
  await control('/guest-joins');
  await control('/speak');
  const panel = page.locator('#room-panel');
  const owner = panel.locator('li[data-role="owner"]');
  await expect(owner.locator('.room-state')).toHaveText('speaking');
  await expect(owner.locator('.room-may')).toHaveText('may: everything');
  const guest = panel.locator('li[data-role="listener"]', { hasText: 'Gus' });
  await expect(guest.locator('.room-state')).toHaveText('in the channel');
  await expect(guest.locator('.room-may')).toHaveText('may: nothing: the model does not hear them');
  await expect(panel.locator('#room-owner-only')).toContainText('cancelling reminders');
  // In words: no internal tool names.
  await expect(panel).not.toContainText(/local_|mcp_/);
  // The wake-name gate's state and why (this harness sets no wake names; on/off is tested in
  // test/integration/bridge/room-wake-names.test.ts).
  await expect(panel.locator('#room-wake')).toHaveText('Wake names off (no wake names set).');
  await shootDoc(panel, 'room-view');
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);
});
