// The fake Realtime service's conversation: its items in order and the client events that act on
// them (`conversation.item.create / retrieve / delete / truncate`), with the `error` events the
// service sends for an unknown item, a duplicate id, a tool output for no call or a truncation past
// the audio; and the session object with its defaults and `session.update` merge.
import type { ConversationItemInput, SessionConfig } from './protocol.ts';

type JsonObject = Record<string, unknown>;

export interface ConversationItem {
  id: string;
  type: string;
  role?: string;
  /** Text of the item (input_text / output_text / transcript / tool output), for assertions. */
  text: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  /** Assistant audio length, ms (what truncate is checked against). */
  audioMs?: number;
  source: 'client' | 'server';
}

/** What set off a response: user speech, a user text item, a tool's output. */
export type ResponseTrigger =
  | { kind: 'speech'; ms: number }
  | { kind: 'text'; text: string }
  | { kind: 'tool_output'; callId: string; output: string };

/** How the conversation answers on the connection's wire. */
export interface ConversationWire {
  send(event: JsonObject): void;
  error(code: string, message: string, options: { param?: string; eventId?: string | null }): void;
  newId(prefix: string): string;
}

export class RealtimeConversation {
  readonly items: ConversationItem[] = [];
  readonly truncations: { item_id: string; audio_end_ms: number }[] = [];
  readonly #wire: ConversationWire;

  constructor(wire: ConversationWire) {
    this.#wire = wire;
  }

  /** `conversation.item.create`: the item as recorded, or null when refused (an `error` went out). */
  create(item: ConversationItemInput, eventId: string | null): ConversationItem | null {
    if (item.id && this.items.some((i) => i.id === item.id)) {
      this.#wire.error('item_already_exists', `Item with id '${item.id}' already exists.`, {
        param: 'item.id',
        eventId,
      });
      return null;
    }
    if (
      item.type === 'function_call_output' &&
      !this.items.some((i) => i.type === 'function_call' && i.call_id === item.call_id)
    ) {
      this.#wire.error('invalid_value', `Tool call ID '${item.call_id}' not found in conversation.`, {
        param: 'item.call_id',
        eventId,
      });
      return null;
    }
    const id = item.id ?? this.#wire.newId('item');
    const record: ConversationItem = { id, type: item.type, text: itemText(item), source: 'client' };
    if (item.type === 'message') record.role = item.role;
    if (item.type === 'function_call' || item.type === 'function_call_output') record.call_id = item.call_id;
    if (item.type === 'function_call') {
      record.name = item.name;
      record.arguments = item.arguments;
    }
    const previous = this.items.at(-1)?.id ?? null;
    this.items.push(record);
    const echoed = { ...item, id, object: 'realtime.item', status: 'completed' };
    this.#wire.send({ type: 'conversation.item.added', previous_item_id: previous, item: echoed });
    this.#wire.send({ type: 'conversation.item.done', previous_item_id: previous, item: echoed });
    return record;
  }

  retrieve(itemId: unknown, eventId: string | null): void {
    const item = this.items.find((i) => i.id === itemId);
    if (!item)
      this.#wire.error('item_not_found', `Item with item_id '${String(itemId)}' not found.`, {
        param: 'item_id',
        eventId,
      });
    else
      this.#wire.send({ type: 'conversation.item.retrieved', item: { id: item.id, type: item.type, role: item.role } });
  }

  delete(itemId: unknown, eventId: string | null): void {
    const at = this.items.findIndex((i) => i.id === itemId);
    if (at < 0) {
      this.#wire.error('item_not_found', `Item with item_id '${String(itemId)}' not found.`, {
        param: 'item_id',
        eventId,
      });
      return;
    }
    this.items.splice(at, 1);
    this.#wire.send({ type: 'conversation.item.deleted', item_id: itemId });
  }

  truncate(itemId: string, contentIndex: number, audioEndMs: number, eventId: string | null): void {
    const item = this.items.find((i) => i.id === itemId);
    if (!item) {
      this.#wire.error('item_not_found', `Item with item_id '${itemId}' not found.`, { param: 'item_id', eventId });
      return;
    }
    if (item.role !== 'assistant' || item.audioMs === undefined || contentIndex !== 0) {
      this.#wire.error('invalid_value', 'Only assistant messages with audio content can be truncated.', {
        param: 'item_id',
        eventId,
      });
      return;
    }
    if (audioEndMs > item.audioMs) {
      this.#wire.error('invalid_value', `Audio content of ${item.audioMs}ms is shorter than ${audioEndMs}ms.`, {
        param: 'audio_end_ms',
        eventId,
      });
      return;
    }
    this.truncations.push({ item_id: itemId, audio_end_ms: audioEndMs });
    item.audioMs = audioEndMs;
    item.text = `${item.text} [truncated at ${audioEndMs} ms]`;
    this.#wire.send({
      type: 'conversation.item.truncated',
      item_id: itemId,
      content_index: 0,
      audio_end_ms: audioEndMs,
    });
  }

  /** What a `response.create` answers: the last item, when it is a user message or a tool's output. */
  lastTrigger(): ResponseTrigger | null {
    const last = this.items.at(-1);
    if (!last) return null;
    if (last.type === 'function_call_output') return { kind: 'tool_output', callId: last.call_id!, output: last.text };
    if (last.role === 'user') return { kind: 'text', text: last.text };
    return null;
  }
}

function itemText(item: ConversationItemInput): string {
  if (item.type === 'function_call') return item.arguments;
  if (item.type === 'function_call_output') return item.output;
  return item.content
    .map((part) =>
      'text' in part
        ? part.text
        : 'transcript' in part && part.transcript
          ? part.transcript
          : part.type === 'input_image'
            ? '[image]'
            : '[audio]',
    )
    .join(' ');
}

/**
 * The session a new socket starts with (the service's documented defaults: server_vad with threshold
 * 0.5, prefix_padding_ms 300, silence_duration_ms 500; openai-client-base ServerVad, guides/realtime-vad).
 */
export function defaultSession(model: string): SessionConfig & JsonObject {
  return {
    type: 'realtime',
    model,
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        turn_detection: {
          type: 'server_vad',
          threshold: 0.5,
          prefix_padding_ms: 300,
          silence_duration_ms: 500,
          create_response: true,
          interrupt_response: true,
        },
        transcription: null,
      },
      output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy' },
    },
    tools: [],
    tool_choice: 'auto',
  };
}

/** session.update replaces the fields it names (nested objects merged one level deep, like the service). */
export function mergeSession(current: SessionConfig & JsonObject, update: SessionConfig): SessionConfig & JsonObject {
  const merged: JsonObject = { ...current, ...update };
  if (update.audio) {
    const audio = (current.audio ?? {}) as JsonObject;
    merged.audio = {
      input: { ...(audio.input as JsonObject), ...update.audio.input },
      output: { ...(audio.output as JsonObject), ...update.audio.output },
    };
  }
  return merged as SessionConfig & JsonObject;
}
