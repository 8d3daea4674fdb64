// A DM asked for while the bot is still logging in is held until the login ends (bounded), not
// refused at once; a login that does not end in time leaves it `unavailable`, after the bound.
import pino from 'pino';
import { expect, it } from 'vitest';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import type { DiscordTextPort } from '../../../main/core/ports.ts';

const OWNER = '123456789012345678';

function fakePort(sent: string[]): DiscordTextPort {
  return {
    sendDirectMessage: async (_user, text) => {
      sent.push(text);
      return { messageId: `m${sent.length}`, channelId: 'dm' };
    },
    postToChannel: async () => {
      throw new Error('not used');
    },
  };
}

it('holds a DM sent during the login until the bot is ready, then delivers it', async () => {
  const sent: string[] = [];
  let loggedIn = false;
  let finishLogin: () => void = () => undefined;
  const login = new Promise<void>((resolve) => (finishLogin = resolve));
  const notifier = createNotifier({
    voice: () => null,
    discordText: () => (loggedIn ? fakePort(sent) : null),
    discordConfigured: true,
    discordLogin: () => login,
    ownerId: OWNER,
    sfxEnabled: false,
    logger: pino({ level: 'silent' }),
  });
  const result = notifier.deliver({ text: 'Pizza is here', mode: 'dm' });
  setTimeout(() => {
    loggedIn = true;
    finishLogin();
  }, 200);
  expect(await result).toMatchObject({ status: 'ok', channel: 'dm' });
  expect(sent).toHaveLength(1);
  notifier.webhook.close();
});

it('gives up after the bound when the login does not end', async () => {
  const notifier = createNotifier({
    voice: () => null,
    discordText: () => null,
    discordConfigured: true,
    discordLogin: () => new Promise<void>(() => undefined),
    loginWaitMs: 150,
    ownerId: OWNER,
    sfxEnabled: false,
    logger: pino({ level: 'silent' }),
  });
  const result = await notifier.deliver({ text: 'Pizza is here', mode: 'dm' });
  expect(result.status).toBe('error');
  expect(result.results.dm).toMatchObject({ status: 'unavailable', detail: 'Discord bot is not connected' });
  notifier.webhook.close();
});
