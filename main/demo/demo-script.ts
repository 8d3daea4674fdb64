// What the demo's simulated people say, and when. The fake people speak these sentences through the
// fake Discord as scripted speech (fakes/shared/scripted-speech.ts): the fake model transcribes
// whatever of it reaches it and answers from those words (fakes/shared/model-answers.ts), so the
// transcript reads like a conversation. `--room` adds two more people: a teammate who talks over
// the owner once, and a guest who opts out (/optout) before saying anything, whose words therefore
// never reach the model or the notes.

/** Who says a line: the owner (the bot's user), a teammate, a guest. */
export const PERSON_KEYS = ['owner', 'teammate', 'guest'] as const;
export type PersonKey = (typeof PERSON_KEYS)[number];

/** The fake Discord user each person is, and the server nickname the bot shows for them. */
export const CAST: Record<PersonKey, { user: string; name: string }> = {
  owner: { user: 'owner', name: 'Olga' },
  teammate: { user: 'stranger', name: 'Priya' },
  guest: { user: 'guest', name: 'Gus' },
};

export interface ScriptLine {
  /** When the line starts, ms after the scene began. */
  atMs: number;
  who: PersonKey;
  text: string;
}

export interface Scene {
  /** The scene starts again this long after it began. */
  everyMs: number;
  lines: readonly ScriptLine[];
}

/** The owner alone, one line every 9 s, round and round. */
export const SOLO_SCENE: Scene = {
  everyMs: 54_000,
  lines: [
    'Hi, can you hear me?',
    "What's the weather like today?",
    'Remind me to water the plants tonight.',
    'Tell me a joke.',
    'We decided to ship the release on Friday.',
    'Can you give me a quick recap?',
  ].map((text, i) => ({ atMs: i * 9_000, who: 'owner' as const, text })),
};

/** Three people: turns, one talk-over (the teammate starts 2 s into the owner's 2.5 s line), and the opted-out guest. */
export const ROOM_SCENE: Scene = {
  everyMs: 40_000,
  lines: [
    { atMs: 0, who: 'owner', text: 'Morning everyone, can you hear me?' },
    { atMs: 8_000, who: 'teammate', text: 'We decided to ship the release on Friday.' },
    { atMs: 15_000, who: 'guest', text: 'Sorry I am late, what did I miss?' },
    { atMs: 21_000, who: 'owner', text: 'Remind me to email the client tomorrow.' },
    { atMs: 23_000, who: 'teammate', text: 'And the launch party is on Saturday.' },
    { atMs: 31_000, who: 'teammate', text: 'Can you give us a quick recap?' },
  ],
};
