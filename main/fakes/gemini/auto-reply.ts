// The fake Gemini model answering by itself (FakeGeminiOptions.autoReply): user audio when its
// turn ends (the service's automatic activity detection on the audio it received, the client's
// `audioStreamEnd` flush of a turn in progress, or `activityEnd` with detection off; activity.ts),
// and injected text (realtime text, clientContent with
// turnComplete). Its first audio follows the service's first-audio latency after that turn end
// (FakeConnection.markTurnEnd, shared/service-timing.ts). With a streaming transcriber (`stream`)
// the input transcription goes out as the audio comes in, as the service sends it
// (`serverContent.inputTranscription` fragments while the user speaks, when the setup asked for
// `inputAudioTranscription`), and the answer is made from the turn's words.
import { spokenReplyToTurn } from '../../core/model/injected-text.ts';
import { tailPcm } from '../shared/pcm.ts';
import type { StreamingTranscriber } from '../shared/scripted-speech.ts';
import type { FakeGeminiConnection, JsonObject } from './connection.ts';
import type { AutoReplyOptions } from './options.ts';
import { MODEL_INPUT_RATE } from './pcm.ts';

const DEFAULT_ANSWER = 'Hello from the fake model.';

const streams = new WeakMap<FakeGeminiConnection, StreamingTranscriber>();

/** The connection's streaming transcriber, when the options give one and the setup asked for input transcription. */
function streamOf(connection: FakeGeminiConnection, auto: AutoReplyOptions): StreamingTranscriber | null {
  if (!auto.stream || !connection.setup || !('inputAudioTranscription' in connection.setup)) return null;
  let stream = streams.get(connection);
  if (!stream) streams.set(connection, (stream = auto.stream(MODEL_INPUT_RATE)));
  return stream;
}

function sendInputTranscription(connection: FakeGeminiConnection, text: string, finished: boolean): void {
  connection.send({ serverContent: { inputTranscription: { text, ...(finished ? { finished: true } : {}) } } });
}

/** What the user said in the turn that just ended, and whether its transcription already went out. */
function heardInTurn(
  connection: FakeGeminiConnection,
  auto: AutoReplyOptions,
  stream: StreamingTranscriber | null,
  ms: number,
): { heard: string | undefined; streamed: boolean } {
  if (auto.inputTranscript !== undefined) return { heard: auto.inputTranscript, streamed: false };
  if (stream) {
    const { rest, turn } = stream.endTurn();
    if (turn) {
      if (rest) sendInputTranscription(connection, rest, true);
      return { heard: turn, streamed: true };
    }
  }
  // The turn's audio (16 kHz, what the client sends) since the model last started a reply.
  const transcribed = auto.transcribe?.(
    tailPcm(connection.audio, connection.samplesSinceTurn, (a) => a.pcm),
    MODEL_INPUT_RATE,
  );
  return { heard: transcribed || `(${ms} ms of speech)`, streamed: false };
}

export function autoReply(
  connection: FakeGeminiConnection,
  message: JsonObject,
  auto: AutoReplyOptions,
  recordUser: (text: string) => void,
): void {
  const realtime = message.realtimeInput as JsonObject | undefined;
  const content = message.clientContent as JsonObject | undefined;
  const stream = streamOf(connection, auto);
  if (stream && (realtime?.audio as { data?: string } | undefined)?.data) {
    const words = stream.hear(connection.audio.at(-1)!.pcm);
    if (words) sendInputTranscription(connection, words, false);
  }
  // The user's turn ended in this message: the service's own detection on the audio, the client's
  // flush (audioStreamEnd) of a turn in progress, or activityEnd with detection off.
  const ended = connection.takeUserTurnEnd();
  if (ended && connection.samplesSinceTurn > 0 && !connection.replying) {
    const ms = Math.round(connection.samplesSinceTurn / 16);
    const { heard, streamed } = heardInTurn(connection, auto, stream, ms);
    if (heard) recordUser(heard);
    const transcript = auto.transcript ?? ((heard && auto.answer?.(heard)) || DEFAULT_ANSWER);
    void connection.reply({ ...auto, inputTranscript: streamed ? undefined : heard, transcript });
    return;
  }
  // A turn the model does not answer (it is still speaking) still gets the rest of its words.
  if (ended && stream) {
    const { rest } = stream.endTurn();
    if (rest) sendInputTranscription(connection, rest, true);
  }
  if (auto.speakInjectedText === false) return;
  // A real model speaks an announcement's words and answers a message; it never reads the wording aloud.
  const answer = auto.transcript ?? auto.answer ?? DEFAULT_ANSWER;
  let injected: string | null = null;
  if (typeof realtime?.text === 'string') injected = spokenReplyToTurn(realtime.text, answer);
  if (content?.turnComplete === true) {
    const texts: string[] = [];
    for (const turn of (content.turns as JsonObject[] | undefined) ?? []) {
      for (const part of (turn.parts as JsonObject[] | undefined) ?? [])
        if (typeof part.text === 'string') texts.push(part.text);
    }
    injected = spokenReplyToTurn(texts.join('\n'), answer);
  }
  if (injected) void connection.reply({ ...auto, transcript: injected, inputTranscript: undefined });
}
