// The fake Gemini model answering by itself (FakeGeminiOptions.autoReply): user audio when the
// client's `audioStreamEnd` ends the turn, and injected text (realtime text, clientContent with
// turnComplete). Its first audio follows the service's first-audio latency after that turn end
// (FakeConnection.markTurnEnd, shared/service-timing.ts).
import { spokenReplyToTurn } from '../../core/model/injected-text.ts';
import type { FakeGeminiConnection, JsonObject } from './connection.ts';
import type { AutoReplyOptions } from './options.ts';

const DEFAULT_ANSWER = 'Hello from the fake model.';

export function autoReply(connection: FakeGeminiConnection, message: JsonObject, auto: AutoReplyOptions, recordUser: (text: string) => void): void {
  const realtime = message.realtimeInput as JsonObject | undefined;
  const content = message.clientContent as JsonObject | undefined;
  if (realtime?.audioStreamEnd === true && connection.samplesSinceTurn > 0 && !connection.replying) {
    const ms = Math.round(connection.samplesSinceTurn / 16);
    const inputTranscript = auto.inputTranscript ?? `(${ms} ms of speech)`;
    recordUser(inputTranscript);
    void connection.reply({ ...auto, inputTranscript, transcript: auto.transcript ?? DEFAULT_ANSWER });
    return;
  }
  if (auto.speakInjectedText === false) return;
  // A real model speaks an announcement's words and answers a message; it never reads the wording aloud.
  const answer = auto.transcript ?? DEFAULT_ANSWER;
  let injected: string | null = null;
  if (typeof realtime?.text === 'string') injected = spokenReplyToTurn(realtime.text, answer);
  if (content?.turnComplete === true) {
    const texts: string[] = [];
    for (const turn of (content.turns as JsonObject[] | undefined) ?? []) {
      for (const part of (turn.parts as JsonObject[] | undefined) ?? []) if (typeof part.text === 'string') texts.push(part.text);
    }
    injected = spokenReplyToTurn(texts.join('\n'), answer);
  }
  if (injected) void connection.reply({ ...auto, transcript: injected, inputTranscript: undefined });
}
