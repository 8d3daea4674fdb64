// A repeating reminder from the dashboard: the list names the rule and the next occurrence
// ("repeats daily 14:05 UTC · next: 2026-12-02 14:05:09 UTC"); cancelling it stops the series.
import { expect, test } from '@playwright/test';
import { login } from './fixtures.ts';

test('schedule: a daily reminder shows its rule and next occurrence; cancel stops it', async ({ page }) => {
  await login(page);
  const form = page.locator('#schedule-form');
  await form.locator('#sched-text').fill('Water the plants');
  await form.locator('#sched-mode').selectOption('dm');
  await form.locator('#sched-amount').fill('2');
  await form.locator('#sched-unit').selectOption('hours');
  await form.locator('#sched-repeat').selectOption('daily');
  // The wall-clock time of the first occurrence on the page's clock (its timezone is the one sent);
  // the click may land in the next minute.
  const times = await page.evaluate(() =>
    [0, 60_000].map((later) => {
      const d = new Date(Date.now() + 2 * 3600 * 1000 + later);
      return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    }),
  );
  await form.getByRole('button', { name: 'Schedule' }).click();
  await expect(page.locator('#schedule-status')).toContainText('then every day at that time');

  const row = page.locator('#schedule-list li', { hasText: 'Water the plants' });
  const hhmm = `(${times.join('|')})`;
  // The page's zone is the one sent, so the line names it once per time and adds no second clock.
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const z = zone.replace(/[/+]/g, (c) => `\\${c}`);
  await expect(row.locator('.repeat')).toHaveText(
    new RegExp(`^repeats daily ${hhmm} ${z} · next: \\d{4}-\\d\\d-\\d\\d ${hhmm}(:\\d\\d)? ${z}$`),
  );

  await row.getByRole('button', { name: /Cancel/ }).click();
  await expect(row.locator('.badge')).toHaveText(/cancelled/);
  await expect(
    page.locator('#schedule-list li', { hasText: 'Water the plants' }).locator('.badge', { hasText: 'scheduled' }),
  ).toHaveCount(0);
});

test('schedule: a reminder typed for a wall-clock time is stored at that second, not now + a rounded delay', async ({
  page,
}) => {
  await login(page);
  const form = page.locator('#schedule-form');
  await form.locator('#sched-text').fill('Call the plumber');
  await form.locator('#sched-mode').selectOption('dm');
  // Two hours ahead on the page's clock, typed the page's way (minutes only): its epoch second has no fraction.
  const { typed, epoch } = await page.evaluate(() => {
    const d = new Date(Date.now() + 2 * 3600 * 1000);
    d.setSeconds(0, 0);
    const p = (n: number): string => String(n).padStart(2, '0');
    return {
      typed: `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`,
      epoch: d.getTime() / 1000,
    };
  });
  await form.locator('#sched-at').fill(typed);
  await expect(form.locator('input[name="sched-when"][value="at"]')).toBeChecked();
  const sent = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/schedule');
  const answered = page.waitForResponse(
    (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/schedule',
  );
  await form.getByRole('button', { name: 'Schedule' }).click();
  // What the page asks for: the moment itself…
  const body = (await sent).postDataJSON() as Record<string, unknown>;
  expect(body.fire_at_epoch).toBe(epoch);
  expect(body).not.toHaveProperty('delay_seconds');
  // …and what the core stored (created_at + a whole-second delay would land up to 0.5 s early).
  const stored = (await (await answered).json()) as { scheduled: string; fire_at_epoch: number };
  expect(stored.fire_at_epoch).toBe(epoch);
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  await expect(page.locator('#schedule-status')).toHaveText(`Scheduled for ${typed} ${zone}.`);
  const row = page.locator('#schedule-list li', { hasText: 'Call the plumber' });
  await expect(row).toContainText(`${typed} ${zone}`);
  await row.getByRole('button', { name: /Cancel/ }).click();
  await expect(row.locator('.badge')).toHaveText(/cancelled/);
});
