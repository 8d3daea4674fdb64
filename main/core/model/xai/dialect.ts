// xAI's dialect of the Realtime protocol (docs/providers.md, "xAI Grok Voice Agent", with sources):
// - the first server event is `conversation.created`, not `session.created` (pipecat
//   grok/realtime/events.py: "the first message received after connecting");
// - `voice`, `turn_detection` sit at the top of the session, the audio formats under `audio`
//   (docs.x.ai voice agent guide; livekit-plugins-xai _session_update.py lifts them there);
// - no `type`/`model`/`output_modalities`/`tool_choice`/transcription settings in the session: the
//   service transcribes on its own;
// - no `conversation.item.truncate` among its client events (docs.x.ai, pipecat): a barge-in is a
//   `response.cancel` only;
// - no image content (pipecat's item content types: text and audio only);
// - `audio/pcm` at a rate we choose: 16 kHz as the voice gate hands it, so no resampling.
import { patienceSilenceMs, type Patience } from '../../contracts/patience.ts';
import type { RealtimeDialect, RealtimeSessionInput } from '../realtime-wire/dialect.ts';
import { toolsOf } from '../realtime-wire/events.ts';

/** Model speech comes at 24 kHz, the bridge's output rate. */
const OUTPUT_RATE = 24_000;
const INPUT_RATE = 16_000;

/**
 * xAI has server_vad only (no semantic detector documented): the patience's silence window is its
 * silence_duration_ms. interrupt_response false: the client cancels in one place (as on OpenAI);
 * the fields are OpenAI's server_vad fields, which livekit-plugins-xai sends to xAI as they are.
 */
export function xaiTurnDetection(patience: Patience): object {
  return {
    type: 'server_vad',
    threshold: 0.5,
    silence_duration_ms: patienceSilenceMs(patience),
    prefix_padding_ms: 300,
    create_response: true,
    interrupt_response: false,
  };
}

export function xaiSessionUpdate(input: RealtimeSessionInput, eventId: string): object {
  const turnDetection = xaiTurnDetection(input.patience);
  return {
    type: 'session.update',
    event_id: eventId,
    session: {
      ...(input.instructions ? { instructions: input.instructions } : {}),
      voice: input.voice,
      turn_detection: turnDetection,
      audio: {
        input: { format: { type: 'audio/pcm', rate: input.inputRate } },
        output: { format: { type: 'audio/pcm', rate: OUTPUT_RATE } },
      },
      tools: toolsOf(input.tools),
    },
  };
}

export const XAI_DIALECT: RealtimeDialect = {
  label: 'xAI',
  readyEvents: ['conversation.created'],
  sessionUpdate: xaiSessionUpdate,
  patienceUpdate: (input, eventId) => ({
    type: 'session.update',
    event_id: eventId,
    session: { turn_detection: xaiTurnDetection(input.patience) },
  }),
  contextUpdate: (update, eventId) => ({
    type: 'session.update',
    event_id: eventId,
    session: {
      ...(update.systemInstruction !== undefined ? { instructions: update.systemInstruction } : {}),
      ...(update.tools ? { tools: toolsOf(update.tools) } : {}),
    },
  }),
  truncates: false,
  images: false,
  inputRate: INPUT_RATE,
};
