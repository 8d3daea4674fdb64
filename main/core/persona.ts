// The model's persona: the owner's persona file (Settings or DISCORD_VOICE_LIVE_PERSONA_FILE), read
// at each call so a saved change applies without a restart, or the built-in one.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';

const DEFAULT_PERSONA =
  'You are a concise, friendly voice assistant in a Discord voice call with your owner. Speak naturally ' +
  'and briefly. When a message asks you to relay a notification, say it to the user in your own words.';

export function readPersona(personaFile: string | undefined, log: Logger): string {
  if (!personaFile) return DEFAULT_PERSONA;
  try {
    return (
      readFileSync(
        personaFile.startsWith('~/') ? path.join(homedir(), personaFile.slice(2)) : path.resolve(personaFile),
        'utf8',
      ).trim() || DEFAULT_PERSONA
    );
  } catch (err) {
    log.warn({ err }, 'persona file unreadable; using the built-in persona');
    return DEFAULT_PERSONA;
  }
}
