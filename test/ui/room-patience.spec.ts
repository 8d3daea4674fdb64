// The Room panel's patience (issue #52): each heard person by name with how long their pause may
// last, a learnt one marked with its cut-offs and a Reset that forgets it (DELETE
// /room/patience/{id}), and someone remembered who is not in the room listed under the people.
import { expect, test } from '@playwright/test';
import { control, login } from './fixtures.ts';

test('shows each speaker’s patience by name and resets a learnt one from the page', async ({ page }) => {
  await control('/seed-patience');
  await login(page);
  const panel = page.locator('#room-panel');
  const owner = panel.locator('li[data-role="owner"]');
  await expect(owner.locator('.room-patience')).toHaveText('patience 1.4 s (learnt: cut off twice)Reset');
  await expect(panel.locator('#room-patience')).toHaveText(
    'Patience natural (0.8 s): how long a pause may last before the model may answer. Also learnt: Mia 1.1 s Reset',
  );
  // People by name: no Discord id on the panel.
  await expect(panel).not.toContainText(/\d{17}/);
  await owner.getByRole('button', { name: /Reset .*patience/ }).click();
  await expect(panel.locator('#room-patience-status')).toContainText("patience is the call's again");
  await expect(owner.locator('.room-patience')).toHaveText('patience 0.8 s');
  await expect(owner.locator('.room-patience')).toHaveAttribute('data-learnt', 'false');
  await panel.getByRole('button', { name: "Reset Mia's patience" }).click();
  await expect(panel.locator('#room-patience')).toHaveText(
    'Patience natural (0.8 s): how long a pause may last before the model may answer.',
  );
});
