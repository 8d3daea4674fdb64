// What each model session of a call is opened with. The persona and tools (CallPersona) are what a
// mid-call context change compares (live-context.ts); a session's full options (SessionSetup) add
// the transcription names, the call's patience, the reminders due and, for a session opened
// mid-call, the call's recent transcript (the re-seed, seed.ts).
import type { PlaybackStats } from '../audio/index.ts';
import type { Patience } from '../contracts/patience.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import type { LiveModelConnectOptions } from '../ports.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { CallContextBase } from './live-context.ts';
import { seededInstruction, transcriptSeed } from './seed.ts';

export interface CallPersonaDeps {
  /** The persona; a function is read again at each session (a saved persona file applies without a restart). */
  systemInstruction: string | (() => string | undefined) | undefined;
  tools: Pick<ToolRegistry, 'declarations'>;
  /** Adds the rule for the per-turn speaker notes when several people may talk (speaker-notes.ts). */
  speakerNotes: { persona(persona: string | undefined): string | undefined };
}

/** The persona and tools a session opened now would get (no transcript seed). */
export class CallPersona {
  readonly #d: CallPersonaDeps;

  constructor(deps: CallPersonaDeps) {
    this.#d = deps;
  }

  base(): CallContextBase {
    const own = this.#d.systemInstruction;
    return {
      tools: this.#d.tools.declarations(),
      systemInstruction: this.#d.speakerNotes.persona(typeof own === 'function' ? own() : own),
    };
  }
}

export interface SessionSetupDeps {
  persona: CallPersona;
  notes: Pick<NotesLog, 'currentCallNotes'>;
  activity: { name(id: string): string };
  /** How much of the current reply has played (a session asks when it is cut off). */
  audio: { playbackStats(): PlaybackStats };
  /** The names input transcription should expect (live-context.ts). */
  context: { vocabulary(): string[] };
  /** The call's patience (call-turn.ts). */
  turn: { readonly patience: Patience };
  pendingContext?: (() => string | undefined) | undefined;
}

export class SessionSetup {
  readonly #d: SessionSetupDeps;

  constructor(deps: SessionSetupDeps) {
    this.#d = deps;
  }

  /** A session opened mid-call (`reopen`) starts with the call's recent transcript (seed.ts). */
  options(reopen: boolean): LiveModelConnectOptions {
    const d = this.#d;
    const { tools, systemInstruction } = d.persona.base();
    const seed = reopen ? transcriptSeed(d.notes.currentCallNotes(200)?.notes ?? [], (id) => d.activity.name(id)) : '';
    return {
      tools,
      systemInstruction: seededInstruction(systemInstruction, seed),
      playedMs: () => d.audio.playbackStats().turnPlayedMs,
      vocabulary: d.context.vocabulary(),
      pendingContext: d.pendingContext,
      patience: d.turn.patience,
    };
  }
}
