// The demo's child process: the fake Discord and every provider's fake model, so that the demo's
// own process (and what the dashboard, /health and the OS show for it) is the core alone. Talks to
// the parent over the IPC channel (fakes-protocol.ts); ends when told to, or when the parent goes away.
import { rmSync } from 'node:fs';
import { startFakeServices, type FakeServices } from './fake-services.ts';
import { ToFakesSchema, type FromFakes, type ToFakes } from './fakes-protocol.ts';

const send = (message: FromFakes) => process.send?.(message);

if (!process.send) {
  process.stderr.write("fakes-process.ts runs as the demo's child process (live-voice-bridge demo)\n");
  process.exit(2);
}

// Ctrl-C reaches the whole terminal process group: the parent decides when the fakes stop, after
// the core has hung up, so the call ends the way a real one does.
process.on('SIGINT', () => undefined);
// Output piped into a reader that Ctrl-C ended (`./scripts/demo.sh | tee log`): nothing to print to.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

// The parent trusts the test CA itself; this process only serves with it.
const fakes = await startFakeServices({ trustCertificates: false, nicknames: true });
let closing = false;
const close = async () => {
  if (closing) return;
  closing = true;
  await fakes.close();
  rmSync(fakes.info.caPath, { force: true });
  if (process.connected) process.disconnect();
  process.exit(0);
};

const SLASH_WAIT_MS = 10_000;
const JOIN_SETTLE_MS = 5_000;

/**
 * A person joins the voice channel; resolves once the bot has executed the E2EE transition the join
 * started (or after 5 s), so what anyone says next is sealed with keys the bot already holds.
 */
async function join(services: FakeServices, userId: string): Promise<void> {
  const { discord } = services;
  const before = discord.dave()?.counters.transitions ?? 0;
  discord.userJoinVoice(userId);
  const until = Date.now() + JOIN_SETTLE_MS;
  while (discord.dave() && discord.dave()!.counters.transitions <= before && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

/** A person types a slash command once the bot has registered it; resolves with the bot's answer. */
async function slash(services: FakeServices, userId: string, command: string): Promise<string> {
  const { discord } = services;
  const until = Date.now() + SLASH_WAIT_MS;
  while (!discord.interactions.commands.has(command)) {
    if (Date.now() > until) throw new Error(`the bot did not register /${command} within ${SLASH_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const id = discord.slash(userId, command);
  while (Date.now() <= until) {
    const answer = discord.interactions.answers.find((a) => a.interactionId === id);
    if (answer) return answer.content;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the bot did not answer /${command}`);
}

/** Carries out one request of the parent; resolves with the bot's answer for a slash command. */
async function perform(message: Exclude<ToFakes, { type: 'close' }>): Promise<string | undefined> {
  const person = 'who' in message ? fakes.info.people.find((p) => p.key === message.who)! : undefined;
  switch (message.type) {
    case 'speak':
      return void (await fakes.ownerSpeaks(message.seconds));
    case 'say':
      return void (await fakes.say(message.who, message.text));
    case 'join':
      return void (await join(fakes, person!.id));
    case 'slash':
      return slash(fakes, person!.id, message.command);
  }
}

process.on('message', (raw) => {
  const parsed = ToFakesSchema.safeParse(raw);
  if (!parsed.success) {
    send({ type: 'failed', message: `bad message from the demo: ${parsed.error.message}` });
    return;
  }
  const message = parsed.data;
  if (message.type === 'close') return void close();
  perform(message).then(
    (answer) => send({ type: 'spoken', id: message.id, ...(answer === undefined ? {} : { answer }) }),
    (err: unknown) => send({ type: 'failed', id: message.id, message: String(err) }),
  );
});
process.on('disconnect', () => void close());
process.on('SIGTERM', () => void close());

send({ type: 'ready', info: fakes.info });
