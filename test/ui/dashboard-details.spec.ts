// Things on the dashboard that used to mislead, and its accessibility: dates on reminders that are
// not today, a toast when a reminder fires, Cancel stable under
// the pointer, no stale "sent" beside a refused file, honest latency axes, focus ring, axe. (Partial
// results not shown as success: test/unit/app/renderer-format.test.ts, the harness has no partial path.)
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { control, login, samplePng } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

async function schedule(
  page: Page,
  text: string,
  amount: number,
  unit: 'seconds' | 'minutes' | 'hours',
  mode = 'dm',
): Promise<void> {
  const form = page.locator('#schedule-form');
  await form.locator('#sched-text').fill(text);
  await form.locator('#sched-mode').selectOption(mode);
  await form.locator('#sched-amount').fill(String(amount));
  await form.locator('#sched-unit').selectOption(unit);
  await form.getByRole('button', { name: 'Schedule' }).click();
  await expect(page.locator('#schedule-list li', { hasText: text })).toHaveCount(1);
}

async function scheduleState(page: Page, text: string): Promise<string | undefined> {
  const token = (await control<{ token: string }>('/token')).token;
  const res = await page.request.get('/schedule?limit=200', { headers: { authorization: `Bearer ${token}` } });
  const { entries } = (await res.json()) as { entries: { text: string; state: string }[] };
  return entries.find((e) => e.text === text)?.state;
}

test('a reminder for tomorrow shows its date; one that fires shows a toast', async ({ page }) => {
  await login(page);
  await schedule(page, 'Dentist tomorrow', 30, 'hours');
  const dentist = page.locator('#schedule-list li', { hasText: 'Dentist tomorrow' });
  // "in 30 h 00 m · 2026-11-24 02:03:17 Europe/Berlin": the page's one date format, never a bare time that reads like today.
  await expect(dentist.locator('.countdown')).toHaveText(
    /^in (29|30) h \d\d m · \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? [\w/+-]+$/,
  );
  await dentist.getByRole('button', { name: /Cancel/ }).click();
  await expect(dentist.locator('.badge')).toHaveText('cancelled');

  await schedule(page, 'Stretch your legs', 2, 'seconds');
  await expect(page.locator('#toasts')).toContainText('Reminder delivered: Stretch your legs', { timeout: 20_000 });
});

test('Cancel is stable under the pointer: a double click or a second click cancels one reminder only', async ({
  page,
}) => {
  await login(page);
  await schedule(page, 'First of two', 10, 'minutes');
  await schedule(page, 'Second of two', 20, 'minutes');
  const first = page.locator('#schedule-list li', { hasText: 'First of two' });
  const second = page.locator('#schedule-list li', { hasText: 'Second of two' });
  await expect(first.locator('.badge')).toHaveText('scheduled');

  // A second click where the first one was, after the list has updated.
  const box = (await first.getByRole('button', { name: /Cancel/ }).boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect(first.locator('.badge')).toHaveText('cancelled');
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect(second.locator('.badge')).toHaveText('scheduled');
  expect(await scheduleState(page, 'Second of two')).toBe('scheduled');

  // A double click on the other one's Cancel.
  await second.getByRole('button', { name: /Cancel/ }).dblclick();
  await expect(second.locator('.badge')).toHaveText('cancelled');
  expect(await scheduleState(page, 'First of two')).toBe('cancelled');

  // Cancel can be undone from its toast: the same reminder is scheduled again.
  await page.locator('#toasts .toast', { hasText: 'Second of two' }).getByRole('button', { name: 'Undo' }).click();
  await expect(page.locator('#schedule-status')).toContainText('Restored');
  await expect(page.locator('#schedule-list li[data-state="scheduled"]', { hasText: 'Second of two' })).toHaveCount(1);
});

test('in a call: a refused file clears the previous "sent"; the latency axes read in ms over time', async ({
  page,
}) => {
  await login(page);
  await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected');
  await page
    .locator('#frame-file')
    .setInputFiles({ name: 'shot.png', mimeType: 'image/png', buffer: await samplePng() });
  await expect(page.locator('#frame-answer')).toContainText('Server answer: sent');
  await page
    .locator('#frame-file')
    .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') });
  await expect(page.locator('#frame-status')).toContainText('send a PNG, JPEG or WebP image');
  await expect(page.locator('#frame-result')).toBeHidden();
  await expect(page.locator('#frame-panel')).not.toContainText('Server answer: sent');

  await control('/speak');
  await expect(page.locator('#latency-plot')).toBeVisible({ timeout: 20_000 });
  const labels = await page.locator('#latency-y span').allTextContents();
  expect(labels).toHaveLength(3);
  for (const label of labels) expect(label).toMatch(/^\d+(\.\d+)? ms$/);
  const [top, middle, bottom] = labels.map((l) => Number.parseFloat(l));
  expect(bottom).toBe(0);
  expect(middle).toBeCloseTo(top! / 2, 5);
  await expect(page.locator('#latency-x')).toHaveText(/^\d+ samples over the last \d+ (s|min)/);

  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);
});

test('accessibility: focus ring on "Choose image…", live regions, and no serious axe violations', async ({ page }) => {
  await login(page);
  // Capture and the picker act in a call only (outside one they wait, and say why).
  await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected');
  const picker = page.locator('label[for="frame-file"]');
  await page.getByRole('button', { name: 'Capture screen' }).focus();
  await page.keyboard.press('Tab');
  await expect(page.locator('#frame-file')).toBeFocused();
  expect(await picker.evaluate((el) => getComputedStyle(el).boxShadow)).not.toBe('none');
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);

  await expect(page.locator('#call-state')).toHaveAttribute('role', 'status');
  for (const id of ['call-status', 'frame-status', 'notes-status', 'schedule-status', 'settings-status'])
    await expect(page.locator(`#${id}`)).toHaveAttribute('role', 'status');

  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      serious.map((v) => `${colorScheme}: ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    ).toEqual([]);
  }
});
