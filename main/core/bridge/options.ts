// What a bridge is built from: its ports, stores and the call's settings (bridge.ts).
import type { Logger } from 'pino';
import type { VoiceActivityClassifier } from '../audio/index.ts';
import type { EventHub } from '../event-hub.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import type { LiveModelProvider, SpeechScreener, VoiceChannelPort } from '../ports.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { CallPatience } from './call-patience.ts';
import type { CallTurnSettings } from './call-turn.ts';
import type { RoomPeople } from './room.ts';
import type { WakeSettings } from './wake-gate.ts';

export interface BridgeOptions {
  voice: VoiceChannelPort;
  model: LiveModelProvider;
  tools: ToolRegistry;
  notes: NotesLog;
  hub: EventHub;
  logger: Logger;
  /** The persona; a function is read again at each call (a saved persona file applies without a restart). */
  systemInstruction?: string | (() => string | undefined);
  inputChunkMs?: number;
  /** Read at each call's start: the patience and the silence cap (config `patience`, `turnSilenceCapMs`; call-turn.ts). */
  turn?: () => Partial<CallTurnSettings>;
  /** Read at each call's start: the voice check that confirms onsets before a turn opens (Silero), or null (the energy gate alone). */
  voiceCheck?: () => Promise<VoiceActivityClassifier | null>;
  leaveWhenOwnerLeaves?: boolean;
  /** Asked before each call starts: a reason to refuse it (e.g. the daily cost cap), or null. */
  startRefusal?: () => string | null;
  /** Awaited before joining (the bot's login, which runs in the background from start-up). */
  ready?: () => Promise<void>;
  /** Monotonic ms clock for latency metrics. */
  now?: () => number;
  /** Who the owner and the allowed speakers are, and their display names (tool authority, attribution). */
  room?: RoomPeople;
  /** Each input transcription fragment as it arrives (notes get whole utterances only at turn end). */
  onInputTranscript?: (text: string, speaker: string | undefined) => void;
  /** Wake names (docs/architecture.md "Several people in one call"); absent = never gated. */
  wake?: { settings: WakeSettings; screener: SpeechScreener | null };
  /** Quiet seconds after which the model is parked (0 never; docs/usage.md), and the outage retry back-off. */
  /** `holds`: work outside the bridge that waits on the call (an agent's question to the owner) keeps it from parking. */
  park?: { afterS: () => number; retry?: { initialMs: number; maxMs: number }; holds?: () => string | null };
  /** Asked before a parked call wakes: a reason to stay parked (the daily cost cap), or null. */
  wakeRefusal?: () => string | null;
  /** The call's patience and the per-speaker learner (call-patience.ts); absent: the provider's default, nothing learnt. */
  patience?: CallPatience;
  /** Reminders due soon, as short text, for a fresh session that continues the call (ports.ts `pendingContext`). */
  pendingContext?: () => string | undefined;
}
