// The dashboard's words for Discord ids and secrets (renderer/id-choices.ts, renderer/secret-words.ts):
// what the owner and channel drop-downs offer, and where a secret not saved in the app comes from.
import { describe, expect, it } from 'vitest';
import type { GuildDirectory } from '../../../main/core/sidecar-client/wire-types.ts';
import { choicesFor } from '../../../renderer/id-choices.ts';
import { secretSourceWords } from '../../../renderer/secret-words.ts';

const guild = (id: string, name: string, people: [string, string][]): GuildDirectory => ({
  id,
  name,
  members: people.map(([pid, pname]) => ({ id: pid, name: pname })),
  voiceChannels: [{ id: `${id}-v`, name: 'General Voice' }],
  textChannels: [{ id: `${id}-t`, name: 'general' }],
});

describe('the settings drop-downs', () => {
  it('offer each person once by name; with several servers, the server is named beside each', () => {
    const one = [
      guild('g1', 'Home', [
        ['u1', 'Ana'],
        ['u2', 'Ben'],
      ]),
    ];
    expect(choicesFor('ownerId', one)).toEqual([
      { id: 'u1', name: 'Ana' },
      { id: 'u2', name: 'Ben' },
    ]);
    const two = [
      ...one,
      guild('g2', 'Work', [
        ['u1', 'Ana'],
        ['u3', 'Cy'],
      ]),
    ];
    expect(choicesFor('ownerId', two)).toEqual([
      { id: 'u1', name: 'Ana (Home)' },
      { id: 'u2', name: 'Ben (Home)' },
      { id: 'u3', name: 'Cy (Work)' },
    ]);
    expect(choicesFor('textChannelId', two).map((c) => c.name)).toEqual(['general (Home)', 'general (Work)']);
    expect(choicesFor('guildId', two)).toEqual([
      { id: 'g1', name: 'Home' },
      { id: 'g2', name: 'Work' },
    ]);
  });
});

describe('where a secret comes from', () => {
  it('names the variable, or the file it was read from', () => {
    expect(secretSourceWords({ kind: 'environment', variable: 'DISCORD_BOT_TOKEN' })).toBe(
      'Set by the environment variable DISCORD_BOT_TOKEN.',
    );
    expect(secretSourceWords({ kind: 'file', file: '/home/me/bridge/.env', variable: 'GEMINI_API_KEY' })).toBe(
      'Set in /home/me/bridge/.env (GEMINI_API_KEY).',
    );
  });
});
