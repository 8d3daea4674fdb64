// Names, not ids, where people appear on the page: the transcript shows the speaker's display name
// (the id only in the hover title), the filter finds people by name, and the room view shows who
// opted out (screenshots: docs/screenshots/room-view-consent.png, transcript-names.png).
import { expect, test } from '@playwright/test';
import { control, login, shootDoc } from './fixtures.ts';

test('the transcript names the speaker; the room shows an opted-out guest', async ({ page }) => {
  await login(page);
  if (!/^connected$/.test((await page.locator('#call-state').textContent()) ?? '')) {
    await page.getByRole('button', { name: 'Join voice' }).click();
    await expect(page.locator('#call-state')).toHaveText('connected');
  }
  const { speaking: ownerId } = await control<{ speaking: string }>('/speak');
  await control('/guest-joins');
  await control('/guest-opts-out');
  const room = page.locator('#room-panel');
  const guest = room.locator('li.opted-out', { hasText: 'Gus' });
  await expect(guest.locator('.room-may')).toHaveText(
    'may: nothing: opted out, their audio is dropped before the model',
    { timeout: 15_000 },
  );
  await expect(guest.locator('.badge')).toHaveText('listener · opted out');
  await shootDoc(room, 'room-view-consent');
  // /optin undoes it (and leaves the shared harness's guest as other specs expect).
  await control('/guest-opts-in');
  await expect(room.locator('li', { hasText: 'Gus' }).locator('.room-may')).toHaveText(
    'may: nothing: the model does not hear them',
    { timeout: 15_000 },
  );
  await expect(room.locator('li.opted-out')).toHaveCount(0);

  const notes = page.locator('#notes-panel');
  const line = notes.locator('li', { hasText: 'hello model' }).first();
  await expect(line).toBeVisible({ timeout: 20_000 });
  await expect(line.locator('.who')).toHaveText('owner');
  await expect(line.locator('.who')).toHaveAttribute('title', ownerId);
  await expect(notes).not.toContainText(ownerId);
  await page.locator('#notes-query').fill('owner');
  await expect(notes.locator('li', { hasText: 'hello model' }).first()).toBeVisible();
  await page.locator('#notes-query').fill('');
  await shootDoc(notes, 'transcript-names');
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);
});
