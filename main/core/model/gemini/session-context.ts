// What a Gemini session's next `setup` says about the conversation, and how long its service
// session may live:
// - persona, tools and transcription names, changeable mid-call (3.8 takes `contextUpdate`:
//   Vertex "Start and manage live sessions", section "Update system instructions and tools during a
//   session with Gemini 3.8 Live"; 3.1 refused it, livekit/agents #5496); a model that cannot take
//   them mid-session gets them with its next socket's setup;
// - a fresh session that continues a call (after a refused resume, a renewal, or one the bridge
//   opens) is seeded with the call's recent transcript and what is pending (conversation-seed.ts);
// - the service ends a session at a hard deadline (58:00 on 3.8, discuss.ai.google.dev thread
//   186392), resumed or not; so a renewal falls due `renewAfterMs` (55 min) after a session began,
//   and the session renews at its next idle point.
import type { LiveConnectConfig, Session } from '@google/genai';
import type { Patience } from '../../contracts/patience.ts';
import type { ConversationSeed, ToolDeclaration } from '../../ports.ts';
import type { TimerClock, TimerHandle } from '../../contracts/clock.ts';
import { RecentTranscript, seededInstruction } from '../conversation-seed.ts';
import { buildLiveConfig, toFunctionDeclaration } from './setup.ts';

export interface SessionContextOptions {
  clock: TimerClock;
  voice: string;
  systemInstruction?: string;
  tools: ToolDeclaration[];
  vocabulary?: readonly string[];
  /** Turn patience for the setup's activity detection (taken only at a setup: the next resume or socket). */
  patience?: Patience;
  /** The call's first session already continues a call (the bridge reopened it). */
  seed?: ConversationSeed;
  pendingContext?: () => string | undefined;
  /** null: never renew. */
  renewAfterMs: number | null;
  /** A renewal fell due: renew at the next idle point. */
  onRenewDue: () => void;
}

export interface ContextUpdate {
  systemInstruction?: string;
  tools?: ToolDeclaration[];
  vocabulary?: readonly string[];
}

export class SessionContext {
  readonly #o: SessionContextOptions;
  readonly transcript = new RecentTranscript();
  #systemInstruction: string | undefined;
  #tools: ToolDeclaration[];
  #vocabulary: readonly string[];
  /** The setup's activity detection comes from it; a new one applies from the next setup. */
  patience: Patience | undefined;
  /** The next fresh session continues the call (seeded); false only before a call's very first. */
  #seedNext: boolean;
  #renewTimer: TimerHandle | null = null;
  renewDue = false;

  constructor(options: SessionContextOptions) {
    this.#o = options;
    this.#systemInstruction = options.systemInstruction;
    this.#tools = options.tools;
    this.#vocabulary = options.vocabulary ?? [];
    this.patience = options.patience;
    this.#seedNext = options.seed !== undefined;
  }

  /** The next socket's config; `seeded` when it opens a fresh session that continues the call. */
  configFor(handle: string | null): { config: LiveConnectConfig; seeded: boolean } {
    const seeded = !handle && this.#seedNext;
    const systemInstruction = seeded
      ? seededInstruction(this.#systemInstruction, this.seed())
      : this.#systemInstruction;
    const config = buildLiveConfig({
      voice: this.#o.voice,
      systemInstruction,
      tools: this.#tools,
      handle,
      ...(this.patience !== undefined ? { patience: this.patience } : {}),
    });
    if (this.#vocabulary.length > 0) config.inputAudioTranscription = { customVocabulary: [...this.#vocabulary] };
    return { config, seeded };
  }

  /** A new service session began (not a resume): its deadline clock starts. */
  sessionBegan(): void {
    this.#seedNext = true;
    this.renewDue = false;
    this.#o.clock.clearTimeout(this.#renewTimer);
    if (this.#o.renewAfterMs === null) return;
    this.#renewTimer = this.#o.clock.setTimeout(() => {
      this.#renewTimer = null;
      this.renewDue = true;
      this.#o.onRenewDue();
    }, this.#o.renewAfterMs);
  }

  /** The call so far, for a fresh session. */
  seed(): ConversationSeed {
    const transcript = this.transcript.lines();
    const seed: ConversationSeed = {
      transcript: transcript.length > 0 ? transcript : (this.#o.seed?.transcript ?? []),
    };
    const pending = [this.#o.seed?.pending, this.#o.pendingContext?.()].filter(Boolean).join('\n');
    if (pending) seed.pending = pending;
    return seed;
  }

  /** Takes the change for later setups; sends it now where the model takes it (true). */
  update(update: ContextUpdate, sdk: Session | null, model: string): boolean {
    if (update.systemInstruction !== undefined) this.#systemInstruction = update.systemInstruction;
    if (update.tools) this.#tools = update.tools;
    if (update.vocabulary) this.#vocabulary = update.vocabulary;
    if (!sdk || !/gemini-3\.8/.test(model) || (update.systemInstruction === undefined && !update.tools)) return false;
    sdk.sendContextUpdate({
      ...(update.systemInstruction !== undefined ? { systemInstruction: update.systemInstruction } : {}),
      ...(update.tools
        ? { tools: { tools: [{ functionDeclarations: update.tools.map(toFunctionDeclaration) }] } }
        : {}),
    });
    return true;
  }

  close(): void {
    this.#o.clock.clearTimeout(this.#renewTimer);
    this.#renewTimer = null;
  }
}
