// Consent in the room: recording bots are expected to announce themselves and honour opt-outs.
// When the bot joins a voice channel it posts a short notice in that channel's text chat (Discord's
// text in voice), and again, once per join, when someone new comes in while it is there. The notice
// says what is kept and for how long (the notes' retention) and how to opt out: `/optout`, or a ❌
// reaction on any of these notices; `/optin` undoes it. An opted-out member's audio is dropped in the
// receive path (AllowedSpeakers excludes them) before the mixer, the model or the notes see it, and
// the choice is kept across calls (ConsentStore).
import type { Logger } from 'pino';
import type { BridgeStateEvent } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import type { SentMessage, VoiceTarget } from '../ports.ts';
import type { ConsentStore, OptOutVia } from './consent-store.ts';

/** Reactions on a notice that mean "do not hear me". */
export const OPT_OUT_EMOJI = new Set(['❌', '🚫', '🔇']);

export interface RoomConsentOptions {
  store: ConsentStore;
  hub: Pick<EventHub, 'subscribe'>;
  voice: {
    on(event: 'membersChanged', listener: () => void): unknown;
    off(event: 'membersChanged', listener: () => void): unknown;
    channelMembers?(): string[];
    displayName?(userId: string): string | undefined;
  };
  /** Where the call is (its voice channel's text chat gets the notices). */
  target: () => VoiceTarget | undefined;
  post: (channelId: string, text: string) => Promise<SentMessage>;
  /** The notes' retention in days (what the notice promises). */
  retentionDays: () => number;
  botName: () => string;
  notes: { append(note: { kind: 'note'; text: string; speaker?: string }): unknown };
  logger: Logger;
}

export class RoomConsent {
  readonly #o: RoomConsentOptions;
  /** Members present when last looked (a join is someone not in it). */
  #present = new Set<string>();
  #inCall = false;
  /** Notices of this process (their reactions count as opt-outs). */
  readonly #notices = new Set<string>();
  readonly noticesPosted: { channelId: string; messageId: string; for: string[] }[] = [];
  #unsubscribe: (() => void) | null = null;
  readonly #onMembers = () => this.#membersChanged();

  constructor(options: RoomConsentOptions) {
    this.#o = options;
  }

  start(): void {
    this.#unsubscribe = this.#o.hub.subscribe((event) => {
      if (event.type === 'state') this.#onState(event.data);
    });
    this.#o.voice.on('membersChanged', this.#onMembers);
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#o.voice.off('membersChanged', this.#onMembers);
  }

  /** `/optout`, a reaction, or the API. Returns what to tell the person. */
  optOut(userId: string, via: OptOutVia): string {
    const changed = this.#o.store.optOut(userId, via);
    if (changed)
      this.#o.notes.append({
        kind: 'note',
        text: `${this.#name(userId)} opted out: their audio is dropped before the model and the notes`,
        speaker: userId,
      });
    return changed
      ? `You opted out: ${this.#o.botName()} no longer hears you (in this call and later ones) and nothing you say is kept. Use /optin to be heard again.`
      : 'You had already opted out: nothing you say reaches the model or the notes. Use /optin to be heard again.';
  }

  optIn(userId: string): string {
    const changed = this.#o.store.optIn(userId);
    if (changed) this.#o.notes.append({ kind: 'note', text: `${this.#name(userId)} opted back in`, speaker: userId });
    return changed
      ? `You opted back in: ${this.#o.botName()} hears you again when you are an allowed speaker.`
      : 'You had not opted out.';
  }

  /** A reaction on a message: an opt-out when it is one of our notices and an opt-out emoji. */
  reaction(userId: string, messageId: string, emoji: string): boolean {
    if (!this.#notices.has(messageId) || !OPT_OUT_EMOJI.has(emoji)) return false;
    this.optOut(userId, 'reaction');
    return true;
  }

  noticeText(joined: readonly string[]): string {
    const who = joined.length > 0 ? `Hello ${joined.map((id) => this.#name(id)).join(', ')}: ` : '';
    const days = this.#o.retentionDays();
    return (
      `🎙️ ${who}${this.#o.botName()} (a live voice assistant) is in this voice channel. ` +
      `What allowed speakers say goes to a live speech model; a transcript of the call is kept as notes for ${days} days, then deleted. Audio is not recorded. ` +
      `Don't want to be heard? React ❌ to this message or type /optout (/optin to undo); it applies to every call.`
    );
  }

  #onState(event: BridgeStateEvent): void {
    if (event.state === 'connected' && !this.#inCall) {
      this.#inCall = true;
      this.#present = new Set(this.#o.voice.channelMembers?.() ?? []);
      void this.#post([]);
    } else if (event.state === 'stopped' || event.state === 'error' || event.state === 'idle') {
      this.#inCall = false;
      this.#present.clear();
    }
  }

  #membersChanged(): void {
    if (!this.#inCall) return;
    const now = new Set(this.#o.voice.channelMembers?.() ?? []);
    const joined = [...now].filter((id) => !this.#present.has(id));
    this.#present = now;
    if (joined.length > 0) void this.#post(joined);
  }

  async #post(joined: string[]): Promise<void> {
    const channelId = this.#o.target()?.channelId;
    if (!channelId) return;
    try {
      const sent = await this.#o.post(channelId, this.noticeText(joined));
      this.#notices.add(sent.messageId);
      this.noticesPosted.push({ channelId, messageId: sent.messageId, for: joined });
    } catch (err) {
      // A notice that cannot be posted (no permission to write there) is logged and in the notes.
      this.#o.logger.warn({ err, channelId }, 'could not post the consent notice');
      this.#o.notes.append({
        kind: 'note',
        text: `could not post the recording notice in the voice channel's chat: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }

  #name(id: string): string {
    return this.#o.voice.displayName?.(id) ?? `user ${id}`;
  }
}
