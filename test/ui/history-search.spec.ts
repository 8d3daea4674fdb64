// History search on the dashboard: after a call ended, a word said in it is found by the search box
// (GET /notes/search) with the call, the time, the speaker's name and the snippet, and choosing the
// result opens that call in the notes panel with the line in view and marked.
import { expect, test } from '@playwright/test';
import { control, login } from './fixtures.ts';

test('History: search finds a past call line by word and opens the call at that line', async ({ page }) => {
  await login(page);
  await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected');
  const token = (await control<{ token: string }>('/token')).token;
  const said = 'the quokka report is due on Friday';
  expect(
    (
      await page.request.get('/say?text=' + encodeURIComponent(said), { headers: { authorization: `Bearer ${token}` } })
    ).status(),
  ).toBe(200);
  await expect(page.locator('#notes-list li.kind-output_transcript', { hasText: 'quokka' })).toBeVisible({
    timeout: 20_000,
  });
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);

  await page.getByRole('searchbox', { name: 'Search past calls' }).fill('quokka');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByRole('list', { name: 'Past call search results' });
  // The model's own line; the announcement's outcome note ("… Spoken.") quotes the words too, and is found beside it.
  const hit = results.locator('.history-hit', { has: page.locator('.who', { hasText: /^model$/ }) }).first();
  await expect(hit).toBeVisible();
  await expect(hit.locator('.who')).toHaveText('model');
  await expect(hit.locator('.text')).toContainText('quokka report');
  await expect(hit.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/);
  const callId = (await hit.locator('.call').textContent())!.trim();
  expect(callId).not.toBe('');

  await hit.click();
  await expect(page.getByRole('combobox', { name: 'Which call to show' })).toHaveValue(callId);
  const found = page.locator('#notes-list li.found');
  await expect(found).toHaveCount(1);
  await expect(found).toContainText('quokka');
  await expect(found).toBeInViewport();
});
