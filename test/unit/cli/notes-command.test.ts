// `live-voice-bridge notes search`, `notes export` and `calls` against a real sidecar over a real
// database: JSON when stdout is not a terminal (what a script reads), tables for a person.
import { callExport } from '../../../main/core/capabilities/call-export.ts';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callsTable, hitsTable } from '../../../main/cli/notes-command.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { searchNotes } from '../../../main/core/notes/notes-search.ts';
import { registerNotesRoutes } from '../../../main/core/sidecar/routes/notes.ts';
import { registerNotesSearchRoutes } from '../../../main/core/sidecar/routes/notes-search.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';
import { openNotesDb, type NotesDb } from '../../helpers/notes-db.ts';

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, '../../../main/cli.ts');
const TOKEN = 'cli-notes-token-'.padEnd(40, 'x');
let dir: string;
let db: NotesDb;
let sidecar: Sidecar;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-cli-notes-'));
  db = openNotesDb(dir);
  const log = db.log();
  log.nameSpeakers((id) => (id === '100000000000000001' ? 'Ada' : undefined));
  log.startCall('call-mon');
  log.append({
    kind: 'input_transcript',
    speaker: '100000000000000001',
    text: 'We moved the launch to Thursday.',
    ts: 1_795_000_000,
  });
  log.append({ kind: 'output_transcript', speaker: 'model', text: 'Thursday it is.', ts: 1_795_003_600 });
  log.close();
  const { store } = db;
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: silentLogger(),
    routes: [
      (app) => registerNotesRoutes(app, { archive: store }),
      (app) =>
        registerNotesSearchRoutes(app, {
          search: (q, o) => searchNotes(store.db, q, o),
          exportCall: (id) => callExport(store, id),
        }),
    ],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
});
afterAll(async () => {
  await sidecar.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HERMES_HOME: dir,
      DISCORD_VOICE_LIVE_PORT: String(port),
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: TOKEN,
    },
  });
}

describe('notes and calls on the command line', () => {
  it('notes search prints the hits as JSON for a script', async () => {
    const { stdout } = await cli('notes', 'search', 'launch', 'thursday');
    expect(JSON.parse(stdout)).toEqual({
      hits: [{ call_id: 'call-mon', at: 1_795_000_000, speaker: 'Ada', snippet: 'We moved the launch to Thursday.' }],
    });
  });

  it('calls --json lists the calls; notes export --md prints the Markdown', async () => {
    expect(JSON.parse((await cli('calls', '--json')).stdout)).toMatchObject({
      calls: [{ id: 'call-mon', events: 2 }],
      next_before: null,
    });
    const md = (await cli('notes', 'export', 'call-mon', '--md')).stdout;
    expect(md).toContain('# Call call-mon');
    expect(md).toContain('**Ada** (input_transcript): We moved the launch to Thursday.');
  });

  it('an empty search is a usage error (exit 2)', async () => {
    await expect(cli('notes', 'search')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('notes search needs the words'),
    });
  });

  it('prints tables for a person', () => {
    expect(
      hitsTable(
        {
          hits: [
            { call_id: 'call-mon', at: 1_795_000_000, speaker: 'Ada', snippet: 'We moved the launch to Thursday.' },
          ],
        },
        100,
      ),
    ).toBe(
      [
        'WHEN (UTC)        CALL      SPEAKER  SAID',
        '2026-11-18 11:06  call-mon  Ada      We moved the launch to Thursday.',
      ].join('\n'),
    );
    expect(
      callsTable(
        {
          calls: [
            {
              id: 'call-mon',
              started_at: 1_795_000_000,
              ended_at: 1_795_003_600,
              events: 2,
              bytes: 10,
              outside_call: false,
            },
          ],
          next_before: null,
        },
        100,
      ),
    ).toBe(['STARTED (UTC)     MINUTES  EVENTS  CALL', '2026-11-18 11:06  60       2       call-mon'].join('\n'));
  });
});
