// History export on the dashboard (issue 54): a past call found by search and opened is downloaded
// as Markdown and as JSON (GET /calls/:id/export, fetched with the page's session and saved as a
// file); the files hold the call's lines, the owner's and the model's, with speakers by the name
// people know them by, never a Discord id; the JSON carries the summary beside the notes.
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { control, login } from './fixtures.ts';

interface ExportDoc {
  call: { id: string };
  summary: unknown;
  notes: Array<{ kind: string; text: string; speaker?: string; speaker_name?: string }>;
}

async function downloadExport(page: Page, format: 'md' | 'json'): Promise<{ name: string; text: string }> {
  await page.getByRole('combobox', { name: 'Export format' }).selectOption(format);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export call' }).click();
  const file = await download;
  return { name: file.suggestedFilename(), text: await readFile((await file.path())!, 'utf8') };
}

test('History: the call found and opened is exported as Markdown and JSON, lines with names, not ids', async ({
  page,
}) => {
  await login(page);
  const exportButton = page.getByRole('button', { name: 'Export call' });
  // Nothing to export while the live view is shown.
  await expect(exportButton).toBeDisabled();
  await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected');
  // The owner talks; the fake model hears "hello model" and answers.
  const { ownerId } = await control<{ ownerId: string }>('/messages');
  // The live list also holds the lines of earlier calls today: wait for this call's own line.
  const ownerLines = page.locator('#notes-list li.kind-input_transcript', { hasText: 'hello model' });
  const before = await ownerLines.count();
  await control('/speak');
  await expect(ownerLines).toHaveCount(before + 1, { timeout: 20_000 });
  const ownerLine = ownerLines.last();
  const ownerName = (await ownerLine.locator('.who').textContent())!.trim();
  expect(ownerName).not.toBe(ownerId);
  const token = (await control<{ token: string }>('/token')).token;
  const said = 'the pelican budget review moved to Monday';
  expect(
    (
      await page.request.get('/say?text=' + encodeURIComponent(said), { headers: { authorization: `Bearer ${token}` } })
    ).status(),
  ).toBe(200);
  await expect(page.locator('#notes-list li.kind-output_transcript', { hasText: 'pelican' })).toBeVisible({
    timeout: 20_000,
  });
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText(/idle|stopped/);

  await page.getByRole('searchbox', { name: 'Search past calls' }).fill('pelican');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const hit = page
    .getByRole('list', { name: 'Past call search results' })
    .locator('.history-hit', { has: page.locator('.who', { hasText: /^model$/ }) })
    .first();
  const callId = (await hit.locator('.call').textContent())!.trim();
  await hit.click();
  await expect(page.getByRole('combobox', { name: 'Which call to show' })).toHaveValue(callId);
  await expect(exportButton).toBeEnabled();

  const md = await downloadExport(page, 'md');
  expect(md.name).toBe(`${callId}.md`);
  expect(md.text.startsWith(`# Call ${callId}\n`)).toBe(true);
  const lines = md.text.split('\n');
  expect(lines.some((l) => l.endsWith(`**${ownerName}** (input_transcript): hello model`))).toBe(true);
  expect(lines.some((l) => /\*\*model\*\* \(output_transcript\): .*pelican budget review/.test(l))).toBe(true);
  // The end-of-call summary is in it (cited by note ids, which are not people's ids).
  expect(md.text).toContain('\n## Summary\n');
  expect(md.text).not.toContain(ownerId);
  await expect(page.locator('#history-status')).toHaveText(`Exported call ${callId} as Markdown.`);

  const json = await downloadExport(page, 'json');
  expect(json.name).toBe(`${callId}.json`);
  const doc = JSON.parse(json.text) as ExportDoc;
  expect(doc.call.id).toBe(callId);
  expect(doc.summary).toMatchObject({ call_id: callId });
  expect(doc.notes.find((n) => n.kind === 'input_transcript' && n.text === 'hello model')).toMatchObject({
    speaker_name: ownerName,
  });
  expect(doc.notes.some((n) => n.kind === 'output_transcript' && n.text.includes('pelican budget review'))).toBe(true);
  // Every line a person said carries their name beside the machine id.
  for (const n of doc.notes.filter((x) => x.kind === 'input_transcript')) expect(n.speaker_name).toBeTruthy();
});
