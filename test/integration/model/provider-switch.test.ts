// Choosing the live model per call: a whole simulated call (fake Discord + both fake model services
// + the real core) starts on Gemini, the dashboard setting switches to OpenAI Realtime, and the
// next call runs on OpenAI — same process, no restart. /health and the notes name the provider.
import { afterEach, describe, expect, it } from 'vitest';
import type { HealthReport, NoteEvent } from '../../../main/core/api-types.ts';
import { startSimulatedCall, type SimulatedCall } from '../../../main/demo/simulated-call.ts';

let call: SimulatedCall | null = null;
afterEach(async () => {
  await call?.close();
  call = null;
});

async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('provider selection', () => {
  it('switches from gemini to openai-realtime between calls without a restart; /health and notes say which carries the call', async () => {
    call = await startSimulatedCall({ provider: 'gemini' });
    const c = call;
    const notes: NoteEvent[] = [];
    c.core.hub.subscribe((event) => {
      if (event.type === 'note') notes.push(event.data);
    });
    const health = async (): Promise<HealthReport> =>
      (await (await fetch(`${c.core.sidecarUrl}/health`)).json()) as HealthReport;

    expect((await fetch(`${c.core.sidecarUrl}/join`, { method: 'POST', headers: c.auth })).status).toBe(200);
    await until(async () => (await health()).bridge.state === 'connected', 'first call connected');
    expect((await health()).live_model).toMatchObject({ provider: 'gemini', model: 'gemini-3.8-live', inCall: true });
    expect(c.gemini.established.length).toBe(1);
    expect((await fetch(`${c.core.sidecarUrl}/stop`, { headers: c.auth })).status).toBe(200);

    const put = await fetch(`${c.core.sidecarUrl}/settings`, {
      method: 'PUT',
      headers: { ...c.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ values: { liveProvider: 'openai-realtime' } }),
    });
    expect(put.status).toBe(200);
    const bad = await fetch(`${c.core.sidecarUrl}/settings`, {
      method: 'PUT',
      headers: { ...c.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ values: { liveProvider: 'openai-imaginary' } }),
    });
    expect(bad.status).toBe(400);

    expect((await fetch(`${c.core.sidecarUrl}/join`, { method: 'POST', headers: c.auth })).status).toBe(200);
    await until(async () => (await health()).bridge.state === 'connected', 'second call connected');
    expect((await health()).live_model).toMatchObject({
      provider: 'openai-realtime',
      model: 'gpt-realtime-2.1',
      inCall: true,
    });
    expect(c.openai.established.length).toBe(1);
    expect(c.gemini.established.length).toBe(1);

    // A whole exchange on the OpenAI call: owner speech in, transcript and reply out.
    await c.ownerSpeaks(1.5);
    await until(() => notes.some((n) => n.kind === 'output_transcript'), 'a reply on the OpenAI call');
    expect(notes.filter((n) => n.kind === 'note').map((n) => n.text)).toEqual([
      'live model: gemini gemini-3.8-live',
      'live model: openai-realtime gpt-realtime-2.1',
    ]);
    expect(notes.some((n) => n.kind === 'input_transcript')).toBe(true);
    expect(c.openai.connections[0]!.errors).toEqual([]);
  });
});
