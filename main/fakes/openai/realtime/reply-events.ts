// The GA server events the fake sends around audio: a spoken response's, from response.created to
// response.done, and a user turn's end and committed items, in the shapes and order of the real service.
// Apart from connection.ts, which decides when each goes out (pacing, barge-in, cancels): this part
// is the events' shapes only.
type JsonObject = Record<string, unknown>;

/** The ids a spoken response's content events carry. */
export function contentBase(responseId: string, itemId: string): JsonObject {
  return { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
}

export function responseCreated(responseId: string): JsonObject {
  return {
    type: 'response.created',
    response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] },
  };
}

/** The assistant's audio item opens: output_item.added, conversation.item.added, content_part.added. */
export function assistantItemOpened(responseId: string, itemId: string): JsonObject[] {
  const item = { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] };
  return [
    { type: 'response.output_item.added', response_id: responseId, output_index: 0, item },
    { type: 'conversation.item.added', previous_item_id: null, item: { ...item, content: [] } },
    {
      type: 'response.content_part.added',
      ...contentBase(responseId, itemId),
      part: { type: 'audio', transcript: '' },
    },
  ];
}

/** The audio finished: output_audio.done, output_audio_transcript.done, content_part.done. */
export function audioFinished(responseId: string, itemId: string, transcript: string): JsonObject[] {
  const base = contentBase(responseId, itemId);
  return [
    { type: 'response.output_audio.done', ...base },
    { type: 'response.output_audio_transcript.done', ...base, transcript },
    { type: 'response.content_part.done', ...base, part: { type: 'audio', transcript } },
  ];
}

export function outputItemDone(responseId: string, itemId: string, completed: boolean): JsonObject {
  const item = { id: itemId, type: 'message', role: 'assistant', status: completed ? 'completed' : 'incomplete' };
  return { type: 'response.output_item.done', response_id: responseId, output_index: 0, item };
}

export function responseDone(
  responseId: string,
  outcome: 'completed' | 'cancelled',
  itemId: string | null,
  usage: unknown,
): JsonObject {
  return {
    type: 'response.done',
    response: {
      id: responseId,
      object: 'realtime.response',
      status: outcome,
      ...(outcome === 'cancelled' ? { status_details: { type: 'cancelled', reason: 'client_cancelled' } } : {}),
      output: itemId ? [{ id: itemId, type: 'message', role: 'assistant' }] : [],
      usage,
    },
  };
}

/** The server VAD heard the user stop (`audioEndMs` on the input audio clock). */
export function speechStopped(audioEndMs: number, itemId: string): JsonObject {
  return { type: 'input_audio_buffer.speech_stopped', audio_end_ms: audioEndMs, item_id: itemId };
}

/** A committed user turn's item: conversation.item.added, then conversation.item.done. */
export function userItemCommitted(id: string, previous: string | null): JsonObject[] {
  const item = () => ({
    id,
    object: 'realtime.item',
    type: 'message',
    status: 'completed',
    role: 'user',
    content: [{ type: 'input_audio', transcript: null }],
  });
  return [
    { type: 'conversation.item.added', previous_item_id: previous, item: item() },
    { type: 'conversation.item.done', previous_item_id: previous, item: item() },
  ];
}

export function inputTranscriptionCompleted(id: string, transcript: string, ms: number): JsonObject {
  return {
    type: 'conversation.item.input_audio_transcription.completed',
    item_id: id,
    content_index: 0,
    transcript,
    usage: { type: 'duration', seconds: ms / 1000 },
  };
}
