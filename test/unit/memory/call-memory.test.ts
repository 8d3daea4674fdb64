// The call memory: at a call's end its summary (grill fields, decisions, open questions, each citing
// its note ids; secrets redacted first) is stored with the call; the next call's instruction carries
// the last summaries within the token budget (0: off); `recall` finds earlier calls' lines with call,
// time and speaker name, for the owner only (a guest is refused), never the opted-out or this call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryCapability, type MemoryApi } from '../../../main/core/capabilities/memory.ts';
import type { Config } from '../../../main/core/config/index.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import type { CallMemory } from '../../../main/core/memory/call-summary.ts';
import { MEMORY_SEED_HEADER } from '../../../main/core/memory/memory-seed.ts';
import type { NotesLog } from '../../../main/core/notes/notes-log.ts';
import { ToolRegistry, type HeardSpeakers } from '../../../main/core/tools/registry.ts';
import { openNotesDb, type NotesDb } from '../../helpers/notes-db.ts';

const OWNER = '100000000000000001';
const GUEST = '100000000000000002';
const SHY = '100000000000000003';
const NAMES: Record<string, string> = { [OWNER]: 'Ada', [GUEST]: 'Gus', [SHY]: 'Shy' };
const KEY = ['sk', 'proj', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6'].join('-');
let dir: string;
let db: NotesDb;
let log: NotesLog;
let tools: ToolRegistry;
const optedOut = new Set<string>();

function start(seedTokens = 600): MemoryApi {
  tools = new ToolRegistry();
  const config = { memory: { seedTokens, seedCalls: 3 } } as Config;
  return (
    memoryCapability.start({ config, logger: silentLogger(), notes: log, archive: db.store, tools }) as {
      api: MemoryApi;
    }
  ).api;
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-memory-'));
  db = openNotesDb(dir);
  log = db.log();
  log.nameSpeakers((id) => NAMES[id]);
  optedOut.clear();
  log.excludeSpeakers((id) => optedOut.has(id));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function recordMonday(): void {
  log.startCall('call-mon');
  const say = (speaker: string, text: string, ts: number) =>
    log.append({ kind: speaker === 'model' ? 'output_transcript' : 'input_transcript', speaker, text, ts });
  say(OWNER, 'Objective: ship the Windows installer this week.', 1_000);
  say('model', 'Got it.', 1_005);
  say(OWNER, `Owner: Ada. The signing key is ${KEY}.`, 1_010);
  say('model', 'Thanks.', 1_015);
  say(OWNER, 'We decided to ship on Thursday after the smoke test.', 1_020);
  say('model', 'Noted, Thursday it is.', 1_030);
  say(OWNER, 'Who signs the macOS build?', 1_040);
  say('model', 'I am not sure; nobody said.', 1_050);
  say(SHY, 'My private detail about the installer.', 1_055);
  log.endCall();
}

const owner: HeardSpeakers = { ids: [OWNER], names: ['Ada'], owner: true, allowed: true };
const guest: HeardSpeakers = { ids: [GUEST], names: ['Gus'], owner: false, allowed: true };

describe('call memory', () => {
  it('stores a cited, redacted summary at the end of the call', () => {
    start();
    recordMonday();
    const memory = db.store.summary('call-mon') as CallMemory;
    const notes = db.store.read('call-mon')!;
    const idOf = (start: string) => notes.find((n) => n.text.startsWith(start))!.id;
    expect(memory.objective).toEqual({ text: 'ship the Windows installer this week', cites: [idOf('Objective:')] });
    expect(memory.owner?.cites).toEqual([idOf('Owner:')]);
    expect(memory.decisions).toContainEqual({
      text: 'We decided to ship on Thursday after the smoke test.',
      cites: [idOf('We decided')],
    });
    expect(memory.open_questions).toEqual([
      { text: 'Who signs the macOS build?', cites: [idOf('Who signs'), idOf('I am not sure')] },
    ]);
    expect(memory.redactions).toBeGreaterThan(0);
    expect(JSON.stringify(memory)).not.toContain(KEY);
  });

  it('seeds the next call with the last summaries within the budget, and not at all when off', () => {
    const memory = start();
    recordMonday();
    const seed = memory.seed();
    expect(seed.startsWith(MEMORY_SEED_HEADER)).toBe(true);
    expect(seed).toContain('Call of 1970-01-01 (call-mon): objective: ship the Windows installer this week;');
    expect(seed).toContain('decided: We decided to ship on Thursday');
    expect(seed).toContain('still open: Who signs the macOS build?');
    expect(seed).not.toContain(KEY);
    db.close();
    db = openNotesDb(dir);
    log = db.log();
    expect(start(0).seed()).toBe('');
    expect(start(40).seed()).toBe(''); // too small for even one summary: nothing half-said
  });

  it('recall: cited lines of earlier calls for the owner; a guest is refused; never the opted-out or this call', async () => {
    start();
    recordMonday();
    optedOut.add(SHY);
    log.startCall('call-tue');
    log.append({
      kind: 'input_transcript',
      speaker: OWNER,
      text: 'what did we decide about the installer?',
      ts: 90_000,
    });
    const asked = await tools.invoke('recall', { query: 'installer' }, { caller: 'model', heard: owner });
    expect(asked.ok).toBe(true);
    const result = (
      asked as { result: { hits: Array<{ call_id: string; speaker: string; at: string }>; text: string } }
    ).result;
    expect(result.hits.map((h) => [h.call_id, h.speaker])).toEqual([['call-mon', 'Ada']]);
    expect(result.hits[0]!.at).toBe('1970-01-01T00:16:40.000Z');
    expect(result.text).toBe(
      '[1970-01-01 00:16 UTC, call call-mon] Ada: Objective: ship the Windows installer this week.',
    );
    const refused = await tools.invoke('recall', { query: 'installer' }, { caller: 'model', heard: guest });
    expect(refused).toMatchObject({ ok: false, error: { code: 'owner_only', status: 403 } });
    expect((refused as { error: { message: string } }).error.message).toMatch(/Tell Gus that you cannot do it/);
    const since = await tools.invoke(
      'recall',
      { query: 'installer', since: '1970-01-02' },
      { caller: 'model', heard: owner },
    );
    expect((since as { result: { hits: unknown[] } }).result.hits).toEqual([]);
  });
});
