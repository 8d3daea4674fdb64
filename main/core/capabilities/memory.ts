// The call memory (issue #54): at each call's end a summary (memory/call-summary.ts) is stored with
// the call; a new call's model is seeded with the last few (memory-seed.ts, within
// DISCORD_VOICE_LIVE_MEMORY_SEED_TOKENS; 0: off); the model's `recall` tool searches every past call.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import { hasContent, summarizeCall, type CallMemory } from '../memory/call-summary.ts';
import { memorySeed } from '../memory/memory-seed.ts';
import { registerRecallTool } from '../memory/recall-tool.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import type { NotesStore } from '../notes/notes-store.ts';
import type { ToolRegistry } from '../tools/registry.ts';

export interface MemoryApi {
  /** The memory seed for a new call's system instruction ('' when off or nothing to say). */
  seed(): string;
}

export interface MemoryDeps {
  config: Config;
  logger: Logger;
  notes: NotesLog;
  archive: NotesStore;
  tools: ToolRegistry;
}

/** Summarise the call that just ended and store it with the call. */
export function rememberCall(archive: NotesStore, callId: string): CallMemory | null {
  const notes = archive.read(callId);
  if (!notes?.length) return null;
  const memory = summarizeCall(callId, notes);
  if (!hasContent(memory)) return null;
  archive.saveSummary(callId, memory);
  return memory;
}

export const memoryCapability: Capability<MemoryDeps, MemoryApi> = {
  name: 'memory',
  start({ config, logger, notes, archive, tools }) {
    const log = moduleLogger(logger, 'memory');
    notes.onCallEnded((callId) => {
      try {
        const memory = rememberCall(archive, callId);
        if (memory)
          log.info(
            {
              callId,
              decisions: memory.decisions.length,
              openQuestions: memory.open_questions.length,
              redactions: memory.redactions,
            },
            'call summary stored',
          );
      } catch (err) {
        log.warn({ err, callId }, 'could not summarise the call');
      }
    });
    registerRecallTool(tools, {
      db: archive.db,
      excludeSpeaker: (id) => notes.speakerOptedOut(id),
      currentCallId: () => notes.currentCallId,
    });
    const { seedTokens, seedCalls } = config.memory;
    const seed = (): string => {
      if (seedTokens <= 0) return '';
      try {
        return memorySeed(
          archive.recentSummaries(seedCalls).map((s) => s.body as CallMemory),
          seedTokens,
        );
      } catch (err) {
        log.warn({ err }, 'could not read the call summaries for the memory seed');
        return '';
      }
    };
    return { api: { seed }, stop: () => undefined };
  },
};
