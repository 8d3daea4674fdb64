// Runs `live-voice-bridge patience …` against the sidecar (the words: patience-command.ts).
import type { SidecarClient, SidecarResponse } from '../core/sidecar-client/client.ts';
import { findSpeaker, patienceAction, patienceSummary, patienceWords } from './patience-command.ts';
import { EXIT } from './sidecar-client.ts';
import { UsageError } from './usage.ts';

export interface PatienceRunContext {
  client: SidecarClient;
  json: boolean;
  write: (line: string) => void;
  writeError: (line: string) => void;
  /** An error answer: its line on stderr; returns the exit code. */
  fail: (response: SidecarResponse) => number;
}

export async function runPatience(args: readonly string[], c: PatienceRunContext): Promise<number> {
  const action = patienceAction(args);
  if ('error' in action) throw new UsageError(action.error);
  const view = await c.client.patience();
  if (view.status >= 400) return c.fail(view);
  const current = view.body;
  if (action.kind === 'show') {
    c.write(c.json ? JSON.stringify(current, null, 2) : patienceSummary(current));
    return EXIT.ok;
  }
  if (action.kind === 'set') {
    const saved = await c.client.request('PUT', '/settings', { values: { patience: action.patience } });
    if (saved.status >= 400) return c.fail(saved);
    c.write(
      c.json
        ? JSON.stringify({ patience: action.patience })
        : `Patience saved: ${patienceWords(action.patience)}. The next call takes it; learnt per-speaker patience stays on top of it.`,
    );
    return EXIT.ok;
  }
  const speaker = findSpeaker(current, action.who);
  if ('error' in speaker) {
    c.writeError(`live-voice-bridge: ${speaker.error}`);
    return EXIT.failed;
  }
  const reset = await c.client.resetPatience(speaker.speaker_id);
  if (reset.status >= 400) return c.fail(reset);
  const after = reset.body.reset;
  c.write(
    c.json
      ? JSON.stringify(reset.body, null, 2)
      : `Reset ${after.name}: back to the call's patience (${after.window_ms} ms).`,
  );
  return EXIT.ok;
}
