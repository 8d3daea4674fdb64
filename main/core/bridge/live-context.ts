// What the model of a call is told about the call's setting: the persona (system instruction), the
// tools, and the names input transcription should expect. Saved settings (a persona file, allowed
// speakers), tools that come and go (MCP servers) and people joining the room change it while a
// call goes on. They reach that call's model at once where the model allows it (Gemini 3.8 takes
// `contextUpdate` mid-session: Vertex "Start and manage live sessions"; research/field-2026-11.md
// §3.1), through the session's `updateContext`; where it does not (3.1, OpenAI: `updateContext`
// false or absent) they apply from the next socket's setup or the next session the call opens.
//
// The names (wake names and the room's display names) bias input transcription (`vocabulary`,
// Gemini's `customVocabulary`): a name the transcriber knows is heard as that name.
import type { Logger } from 'pino';
import type { LiveModelSession, ToolDeclaration } from '../ports.ts';

export interface CallContextBase {
  systemInstruction?: string | undefined;
  tools: ToolDeclaration[];
}

export interface LiveContextOptions {
  /** Persona and tools as a session opened now would get them (no transcript seed: session-setup.ts). */
  persona: { base(): CallContextBase };
  /** The model link: the session carrying the call now, or null (no call, parked, in an outage). */
  link: { readonly session: LiveModelSession | null };
  /** Wake names as configured (they change only with a restart). */
  wakeNames: readonly string[];
  /** Users whose names the room may say: allowed speakers and who is in the voice channel. */
  speakerIds: () => readonly string[];
  /** A user's name as the room shows it, when known. */
  displayName?: ((userId: string) => string | undefined) | undefined;
  /** What the call's notes should say about a change (applied now, or from the next session). */
  note: (text: string) => void;
  logger: Logger;
}

/** At most this many names go to the transcriber (a long list dilutes the bias). */
const MAX_VOCABULARY = 50;

interface Applied {
  systemInstruction: string | undefined;
  tools: string;
  vocabulary: string;
}

export class LiveContext {
  readonly #o: LiveContextOptions;
  /** What the current session was given (or last updated with); null while no session is up. */
  #applied: Applied | null = null;
  #checkQueued = false;
  /** The names the last session opened was given (the first opens while the bot joins: no room yet). */
  #offeredVocabulary = '';

  constructor(options: LiveContextOptions) {
    this.#o = options;
  }

  /** For a session being opened: wake names, then the room's display names, once each. */
  vocabulary(): string[] {
    const names = this.#names();
    this.#offeredVocabulary = names.join('\n');
    return names;
  }

  #names(): string[] {
    // Once each, whatever the case ("Gemini" and "gemini" are one name to a transcriber).
    const names = new Map<string, string>();
    const add = (name: string | undefined) => {
      const trimmed = name?.trim();
      if (trimmed && !names.has(trimmed.toLowerCase())) names.set(trimmed.toLowerCase(), trimmed);
    };
    for (const name of this.#o.wakeNames) add(name);
    for (const id of this.#o.speakerIds()) add(this.#o.displayName?.(id));
    return [...names.values()].slice(0, MAX_VOCABULARY);
  }

  /** A session was wired into the call: it was opened with the context as it is now. */
  opened(): void {
    this.#applied = { ...this.#snapshot(), vocabulary: this.#offeredVocabulary };
  }

  /** The session left the call (closed, parked, lost). */
  closed(): void {
    this.#applied = null;
  }

  /**
   * Something the context is made of may have changed (settings saved, tools registered, someone
   * joined): checked once per event-loop turn, however many changes came together.
   */
  changed(): void {
    if (this.#checkQueued) return;
    this.#checkQueued = true;
    setImmediate(() => {
      this.#checkQueued = false;
      this.#apply();
    });
  }

  #current(): CallContextBase {
    return this.#o.persona.base();
  }

  #snapshot(base = this.#current()): Applied {
    return {
      systemInstruction: base.systemInstruction,
      tools: JSON.stringify(base.tools),
      vocabulary: this.#names().join('\n'),
    };
  }

  #apply(): void {
    const session = this.#o.link.session;
    const before = this.#applied;
    if (!session || !before) return;
    const base = this.#current();
    const now = this.#snapshot(base);
    const update: { systemInstruction?: string; tools?: ToolDeclaration[]; vocabulary?: readonly string[] } = {};
    const personaChanged = now.systemInstruction !== before.systemInstruction;
    const toolsChanged = now.tools !== before.tools;
    // A persona emptied mid-call is sent as an empty instruction: the old one must not stay.
    if (personaChanged) update.systemInstruction = base.systemInstruction ?? '';
    if (toolsChanged) update.tools = base.tools;
    if (now.vocabulary !== before.vocabulary) update.vocabulary = this.#names();
    if (Object.keys(update).length === 0) return;
    this.#applied = now;
    const sentNow = session.updateContext?.(update) ?? false;
    const what = [personaChanged ? 'persona' : null, toolsChanged ? 'tools' : null].filter(Boolean).join(' and ');
    this.#o.logger.info(
      { persona: personaChanged, tools: toolsChanged, vocabulary: update.vocabulary !== undefined, sentNow },
      'call context changed',
    );
    // Names alone are not worth a note: they bias transcription from the next socket.
    if (what)
      this.#o.note(
        sentNow
          ? `${what} updated mid-call (${session.model})`
          : `${what} changed: ${session.model} takes it from its next session`,
      );
  }
}
