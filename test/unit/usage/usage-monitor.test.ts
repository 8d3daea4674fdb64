// The daily cap: today's estimate (kept across restarts in the database's ledger) warns once at the
// threshold (note + spoken sentence), ends the call at the cap and refuses joins until the next
// local day; each call's figures go into its notes at its end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../main/core/event-hub.ts';
import type { LiveModelUsage } from '../../../main/core/ports.ts';
import { openDatabase, type OpenedDatabase } from '../../../main/core/store/database.ts';
import { SqlUsageLedger } from '../../../main/core/usage/ledger-store.ts';
import { defaultPrices } from '../../../main/core/usage/pricing.ts';
import { emptyTokenUsage } from '../../../main/core/usage/tokens.ts';
import { UsageMonitor, type UsageMonitorOptions } from '../../../main/core/usage/usage-monitor.ts';

let dir: string;
let database: OpenedDatabase;
let now: number;
let reported: LiveModelUsage;
let notes: string[];
let spoken: string[];
let ended: string[];
let hub: EventHub;
let callId: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-usage-'));
  database = openDatabase({ dir, logger: pino({ level: 'silent' }) });
  now = new Date(2026, 10, 24, 12, 0).getTime();
  reported = {};
  notes = [];
  spoken = [];
  ended = [];
  hub = new EventHub();
  callId = 'call-1';
});
afterEach(() => {
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

function monitor(over: Partial<UsageMonitorOptions> = {}): UsageMonitor {
  const prices = defaultPrices();
  prices.gemini = { output_audio: 1_000_000 }; // $1 per output audio token: easy sums
  const m = new UsageMonitor({
    hub,
    current: () => ({ provider: 'gemini', usage: reported }),
    callId: () => callId,
    prices,
    dailyCapUsd: 10,
    // A new ledger over the same database each time: what a restart reads back.
    ledger: new SqlUsageLedger(database.db),
    notes: { append: (n) => notes.push(n.text) },
    say: (text) => spoken.push(text),
    parkCall: async (reason: string) => ended.push(reason),
    capParkDelayMs: 0,
    logger: pino({ level: 'silent' }),
    now: () => now,
    ...over,
  });
  m.start();
  return m;
}

const outputTokens = (n: number): LiveModelUsage => {
  const tokens = emptyTokenUsage();
  tokens.output.audio = n;
  return { tokens };
};
const state = (s: 'connecting' | 'connected' | 'stopping' | 'stopped') =>
  hub.publish({ type: 'state', data: { state: s, previous: 'idle', ts: now / 1000 } });

describe('UsageMonitor', () => {
  it('reports the call, warns once at 80 %, at the cap says so and parks the call, and refuses joins until tomorrow', async () => {
    const m = monitor();
    state('connecting');
    state('connected');
    reported = outputTokens(5);
    m.tick();
    expect(m.report()).toMatchObject({
      call: { call_id: 'call-1', provider: 'gemini', total_tokens: 5, cost_usd: 5, live: true },
      today: { cost_usd: 5, cap_usd: 10, state: 'ok' },
    });
    reported = outputTokens(8);
    m.tick();
    m.tick();
    expect(spoken).toHaveLength(1);
    expect(notes.filter((n) => n.startsWith('cost warning'))).toHaveLength(1);
    expect(spoken[0]).toMatch(/go quiet when it is reached/);
    expect(m.report().today.state).toBe('warned');
    expect(ended).toEqual([]);
    reported = outputTokens(10);
    m.tick();
    m.tick();
    expect(spoken.at(-1)).toMatch(/reached your daily cap/);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toEqual(['daily cost cap reached']);
    expect(notes.some((n) => /^daily cost cap reached: .* the model is parked until tomorrow/.test(n))).toBe(true);
    state('stopping');
    state('stopped');
    expect(notes.at(-1)).toBe('usage: 10 tokens (out: audio 10) · est. $10.0000');
    expect(m.joinRefusal()).toMatch(/reached the daily cap/);
    expect(m.report().today.state).toBe('reached');
    // A restart the same day still refuses (the ledger is on disk); the next day starts from zero.
    const again = monitor();
    expect(again.joinRefusal()).toMatch(/reached the daily cap/);
    now += 24 * 3600 * 1000;
    expect(again.joinRefusal()).toBeNull();
    expect(again.report().today).toMatchObject({ cost_usd: 0, state: 'ok' });
  });

  it('today adds up every call once, whatever the number of ticks; the warning is not repeated in the next call', () => {
    const m = monitor();
    state('connected');
    reported = outputTokens(9);
    m.tick();
    state('stopping');
    state('stopped');
    expect(spoken).toHaveLength(1);
    callId = 'call-2';
    reported = outputTokens(0);
    state('connecting');
    reported = outputTokens(0.5);
    m.tick();
    m.tick();
    expect(m.report().today.cost_usd).toBe(9.5);
    expect(spoken).toHaveLength(1);
    expect(new SqlUsageLedger(database.db).load('2026-11-24')).toMatchObject({
      calls: { 'call-1': 9, 'call-2': 0.5 },
      warned: true,
    });
  });

  it('without a cap: figures only, never refuses or ends a call', () => {
    const m = monitor({ dailyCapUsd: undefined });
    state('connected');
    reported = outputTokens(1000);
    m.tick();
    expect(m.joinRefusal()).toBeNull();
    expect(ended).toEqual([]);
    expect(m.report().today).toMatchObject({ cost_usd: 1000, cap_usd: null, state: 'ok' });
  });
});
