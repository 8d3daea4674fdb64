// User speech the service has not answered yet, kept so that a new socket hears it. OpenAI Realtime
// and GPT-Live have no resumption: audio sent to a socket that then drops or expires (and audio that
// arrives while no socket is open) is gone with that session, and the history the adapters replay
// holds only transcripts of turns the service already finished. Gemini resumes, but a resumed
// session knows the conversation only as of its handle. So the session keeps the user's audio since
// the service last began answering (bounded, 5 s by default: the oldest gives way) and sends it
// again, in order with its ends of speech, on the next socket; it stays kept until the new service
// answers it, so a second drop before the answer replays it again.
// It is the unheard-speech store under its 'until answered' policy (audio/unheard-speech.ts: a
// replay keeps what it sent); only the name of the release is this reason's own.
import { UnheardSpeech, untilAnswered } from '../../audio/unheard-speech.ts';

export class UnansweredAudio extends UnheardSpeech {
  constructor(maxMs = 5000) {
    super(untilAnswered(maxMs));
  }

  /** The service began answering: what it heard is in its conversation now. */
  answered(): void {
    this.clear();
  }
}
