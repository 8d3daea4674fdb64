// The notes of a reply cut short: the user's words that the service's transcription sends after the
// cut (it lags the speech: protocols.md §1.5) stay in the note of the request they belong to, the
// model's note keeps only what was heard, and nothing waits past the end of the model's turn.
import { describe, expect, it } from 'vitest';
import type { NoteKind } from '../../../main/core/api-types.ts';
import type { CallAudio } from '../../../main/core/bridge/call-audio.ts';
import type { CallMetrics } from '../../../main/core/bridge/metrics.ts';
import { ReplyCut } from '../../../main/core/bridge/reply-cut.ts';
import type { SpeakerActivity } from '../../../main/core/bridge/room.ts';
import type { SpeakerNotes } from '../../../main/core/bridge/speaker-notes.ts';
import { TranscriptAggregator } from '../../../main/core/bridge/transcripts.ts';
import type { LiveModelSession } from '../../../main/core/ports.ts';

interface Note {
  kind: NoteKind;
  text: string;
  speaker?: string;
}

function setUp() {
  const notes: Note[] = [];
  const transcripts = new TranscriptAggregator((kind, text, speaker) => notes.push({ kind, text, speaker }));
  let bargedIn = 0;
  // Only what ReplyCut touches: the player reports 40 ms heard, the rest records nothing of interest.
  const audio: Pick<CallAudio, 'interrupt'> = { interrupt: () => 40 };
  const cut = new ReplyCut({
    audio: audio as CallAudio,
    metrics: { localBargeIns: 0 } as CallMetrics,
    activity: { cutOff: () => undefined } as SpeakerActivity,
    speakerNotes: { turnEnded: () => undefined } as SpeakerNotes,
    transcripts,
    voice: {},
    link: { session: { bargedIn: () => void bargedIn++ } as Partial<LiveModelSession> as LiveModelSession },
    call: { state: 'connected' },
    wake: { withholding: false },
  });
  /** What model-binding.ts does at the model's turnComplete. */
  const turnComplete = () => {
    cut.turnEnded();
    transcripts.flush();
  };
  return { notes, transcripts, cut, turnComplete, bargedIn: () => bargedIn };
}

describe('a reply cut short, and its notes', () => {
  it('talked over (local barge-in): the late end of the request joins its note, and the reply ends where it was heard', () => {
    const { notes, transcripts, cut, turnComplete, bargedIn } = setUp();
    transcripts.input('We decided to ', ['olga']);
    transcripts.output('Okay, ');
    cut.speakerTalkedOver();
    expect(bargedIn()).toBe(1);
    expect(notes).toEqual([]); // nothing written at the cut: the turn has not ended
    transcripts.input('ship on Friday.', ['olga']); // the transcription's late fragment
    transcripts.output('noted for Friday.'); // the rest of the reply: its audio was dropped
    turnComplete();
    expect(notes).toEqual([
      { kind: 'input_transcript', text: 'We decided to ship on Friday.', speaker: 'olga' },
      { kind: 'output_transcript', text: 'Okay, (interrupted after 40 ms)', speaker: 'model' },
    ]);
  });

  it("the service's `interrupted` ends the turn: the notes are written then", () => {
    const { notes, transcripts, cut } = setUp();
    transcripts.input('Tell me a long story', ['olga']);
    transcripts.output('Once upon a time');
    cut.serviceInterrupted();
    expect(notes).toEqual([
      { kind: 'input_transcript', text: 'Tell me a long story', speaker: 'olga' },
      { kind: 'output_transcript', text: 'Once upon a time (interrupted after 40 ms)', speaker: 'model' },
    ]);
  });

  it('a cut the service never confirms: the next reply writes the cut one first, and its own words are kept', () => {
    const { notes, transcripts, cut, turnComplete } = setUp();
    transcripts.input('What time is it?', ['olga']);
    transcripts.output('It is');
    cut.cut('stopped by you');
    cut.replyStarted(); // the next reply's first audio (model-binding.ts: a reply starts)
    transcripts.output('Anything else?');
    turnComplete();
    expect(notes.map((n) => n.text)).toEqual([
      'What time is it?',
      'It is (stopped by you after 40 ms)',
      'Anything else?',
    ]);
  });
  it("the Stop button tells the session too (cancel and truncate at what was heard), once, and the service's confirmation cuts nothing more", () => {
    const { notes, transcripts, cut, turnComplete, bargedIn } = setUp();
    transcripts.output('Here is the long answer ');
    expect(cut.cut('stopped by you')).toEqual({ interrupted: true, played_ms: 40 });
    expect(bargedIn()).toBe(1);
    cut.serviceInterrupted(); // the service's own interrupted for the cancelled reply: a confirmation
    expect(bargedIn()).toBe(1);
    turnComplete();
    expect(notes).toEqual([
      { kind: 'output_transcript', text: 'Here is the long answer (stopped by you after 40 ms)', speaker: 'model' },
    ]);
  });

  it("a cut of a reply already written (its tail played on after its turnComplete) leaves the next request's note whole", () => {
    const { notes, transcripts, cut, turnComplete } = setUp();
    transcripts.input('Let us look at the release.', ['olga']);
    cut.replyStarted();
    transcripts.output('Okay.');
    turnComplete();
    cut.speakerTalkedOver(); // the last of 'Okay.' was still playing
    transcripts.input('We decided to ', ['olga']); // the next request's early words
    cut.replyStarted(); // the next reply's first audio
    transcripts.input('ship on Friday.', ['olga']); // and its late ones
    transcripts.output('Noted.');
    turnComplete();
    expect(notes.map((n) => n.text)).toEqual([
      'Let us look at the release.',
      'Okay.',
      'We decided to ship on Friday.',
      'Noted.',
    ]);
  });
});
