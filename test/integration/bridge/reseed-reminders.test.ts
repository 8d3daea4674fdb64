// A fresh model session opened after a refused resume knows the reminders still to come (#37 Build
// 2: "re-seed it (persona, the call's recent transcript, pending reminders)"), through the real
// parts: a reminder scheduled with POST /schedule, a call on the fake Discord and the fake Gemini,
// whose service session reaches its hard deadline (1011 "Deadline expired") and refuses the resume
// with 1007 (discuss.ai.google.dev thread 186392). The fresh session's setup carries the reminder.
import { afterEach, describe, expect, it } from 'vitest';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { waitFor } from './signals.ts';

const REMINDER = 'take the lasagne out of the oven';

let call: CoreOnFakes | undefined;

afterEach(async () => {
  await call?.close();
  call = undefined;
});

describe('pending reminders in the re-seed', () => {
  it('a 1007-refused resume → the fresh session’s setup names the reminder due soon; a far one is left out', async () => {
    call = await startCoreOnFakes({ gemini: { bargeInRms: null, sessionDeadlineMs: 2500 } });
    const c = call;
    for (const [text, delay] of [
      [REMINDER, 600],
      ['renew the passport', 30 * 86_400],
    ] as const) {
      const res = await c.post('/schedule', { text, delay_seconds: delay, mode: 'dm' });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
    }
    expect((await c.post('/join')).status).toBe(200);
    const first = await c.gemini.connection(0);
    expect(JSON.stringify(first.setup?.systemInstruction ?? null)).not.toContain(REMINDER);
    await waitFor(() => first.closeCode !== null, 'the session deadline close', 20_000);
    expect(first.closeCode).toBe(1011);
    const fresh = await c.gemini.connection(1, 20_000);
    expect(fresh.resumedWithHandle).toBeNull();
    expect(c.gemini.connections.filter((x) => x.closeCode === 1007)).toHaveLength(1);
    const instruction = JSON.stringify(fresh.setup?.systemInstruction ?? null);
    expect(instruction).toContain(REMINDER);
    expect(instruction).toMatch(/in (9|10) min/);
    expect(instruction).not.toContain('renew the passport');
  }, 60_000);
});
