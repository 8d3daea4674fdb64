// What the fake Realtime service says when it refuses a client event: each refusal's code, the
// service's own wording and the parameter it names, as the real service answers (the `error` event).
// Apart from connection.ts, which decides when to refuse: this part is the words, kept in one list
// so a test or a reader can compare them with the service's.
export interface Refusal {
  code: string;
  message: string;
  param?: string;
}

export const REFUSALS = {
  commitTooSmall: (bufferMs: number): Refusal => ({
    code: 'input_audio_buffer_commit_empty',
    message: `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${bufferMs.toFixed(2)}ms of audio.`,
  }),
  /** `wait`: the client asked (response.create), and is told to wait; the service's own VAD is not. */
  activeResponse: (responseId: string, wait: boolean): Refusal => ({
    code: 'conversation_already_has_active_response',
    message: `Conversation already has an active response in progress: ${responseId}.${wait ? ' Wait until the response is finished before creating a new one.' : ''}`,
  }),
  noActiveResponse: (): Refusal => ({
    code: 'response_cancel_not_active',
    message: 'Cancellation failed: no active response found.',
  }),
  outputClearOverWebSocket: (): Refusal => ({
    code: 'invalid_value',
    message: 'output_audio_buffer.clear is only supported for WebRTC and SIP connections.',
    param: 'type',
  }),
  voiceLocked: (): Refusal => ({
    code: 'cannot_update_voice',
    message: "Cannot update a conversation's voice if assistant audio is present.",
    param: 'session.audio.output.voice',
  }),
  modelChange: (model: string): Refusal => ({
    code: 'invalid_value',
    message: `Cannot change the model of a session (connected as '${model}').`,
    param: 'session.model',
  }),
  oddAudioBytes: (): Refusal => ({
    code: 'invalid_value',
    message: 'Invalid audio: PCM16 audio must contain an even number of bytes.',
    param: 'audio',
  }),
};

/** The `error` server event: a refusal (invalid_request_error) unless `type` says otherwise. */
export function errorEvent(
  code: string,
  message: string,
  options: { param?: string; eventId?: string | null; type?: string },
): Record<string, unknown> {
  const error = {
    type: options.type ?? 'invalid_request_error',
    code,
    message,
    param: options.param ?? null,
    event_id: options.eventId ?? null,
  };
  return { type: 'error', error };
}
