// "Sent to the fallback" is an outcome the sender sees (issue 53): a voice notification the call did
// not speak (no pause came in time) that `auto` then delivered by DM says so in its say record
// (GET /say/{id}, the `say` event, the notes), not only "Not spoken". Runs the real notifier, the
// real CallRequests.speak and SpokenOutcomes; only the model session is stubbed (it drops the text
// at its deadline, as a session with no idle moment does).
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SayOutcome } from '../../../main/core/api-types.ts';
import { CallRequests, type CallRequestsDeps } from '../../../main/core/bridge/call-requests.ts';
import { SpokenOutcomes } from '../../../main/core/bridge/spoken-outcomes.ts';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import type { DiscordTextPort, TextDelivery } from '../../../main/core/ports.ts';

function rig(dm: 'ok' | 'fail') {
  const published: SayOutcome[] = [];
  const notes: string[] = [];
  const outcomes = new SpokenOutcomes({ publish: (o) => published.push(o), note: (t) => notes.push(t) });
  const link = {
    state: 'connected',
    sendText: (_text: string, delivery?: TextDelivery) =>
      queueMicrotask(() => delivery?.onSettled?.({ delivered: false, reason: 'timeout' })),
  };
  const requests = new CallRequests({
    link,
    inFlight: { text: (delivery: TextDelivery) => delivery },
    notes: { append: () => undefined },
    metrics: {},
    call: { state: 'connected', reason: undefined, live: () => true },
    outcomes,
    follower: { handedOver: () => undefined },
  } as unknown as CallRequestsDeps);
  const port: DiscordTextPort = {
    async sendDirectMessage() {
      if (dm === 'fail') throw new Error('Cannot send messages to this user');
      return { messageId: 'm1', channelId: 'dmchan' };
    },
    async postToChannel() {
      throw new Error('Missing Access');
    },
  };
  const notifier = createNotifier({
    voice: () => requests,
    discordText: port,
    ownerId: '100000000000000001',
    sfxEnabled: false,
    logger: pino({ level: 'silent' }),
    voiceBoundMs: 50,
  });
  return { notifier, outcomes, published, notes };
}

describe('a voice notification the call did not speak', () => {
  it('delivered by DM instead: its say record is dropped, says why and that it was sent by direct message', async () => {
    const r = rig('ok');
    const result = await r.notifier.deliver({ text: 'The deploy finished', mode: 'auto', source: 'ci' });
    expect(result).toMatchObject({ status: 'ok', channel: 'dm' });
    const sayId = result.results.voice?.say_id;
    expect(sayId).toMatch(/^say_[0-9a-f]{12}$/);
    const record = r.outcomes.get(sayId!);
    expect(record).toMatchObject({
      id: sayId,
      verb: 'notify',
      outcome: 'dropped',
      spoken_text: null,
      by: null,
      reason: 'no pause in the conversation to speak it in time; sent by direct message instead',
    });
    // /events gets the amended record (the page and a following CLI see it), and the notes say it in words.
    expect(r.published.at(-1)).toEqual(record);
    expect(r.notes.at(-1)).toBe(
      'notify from notification "[Agent notification] The deploy finished": Not spoken: no pause in the conversation to speak it in time; sent by direct message instead.',
    );
  });

  it('delivered by no one: the record only says why it was not spoken', async () => {
    const r = rig('fail');
    const result = await r.notifier.deliver({ text: 'The deploy finished', mode: 'auto', source: 'ci' });
    expect(result.status).toBe('error');
    expect(r.outcomes.get(result.results.voice!.say_id!)).toMatchObject({
      outcome: 'dropped',
      reason: 'no pause in the conversation to speak it in time',
    });
  });
});

describe('SpokenOutcomes.sentInstead', () => {
  it('settles a record still waiting as dropped with both reasons, and leaves a spoken one alone', () => {
    const o = new SpokenOutcomes({ publish: () => undefined });
    const waiting = o.create('notify', 'Lunch', 'notification', 'waiting for a pause in the conversation');
    o.sentInstead(waiting, 'the model did not confirm the hand-off in time', 'sent to the webhook instead');
    expect(o.get(waiting)).toMatchObject({
      outcome: 'dropped',
      reason: 'the model did not confirm the hand-off in time; sent to the webhook instead',
    });
    const spoken = o.create('notify', 'Tea', 'notification', 'waiting');
    o.settle(spoken, 'spoken', { spoken_text: 'Tea' });
    o.sentInstead(spoken, 'x', 'sent by direct message instead');
    expect(o.get(spoken)).toMatchObject({ outcome: 'spoken', reason: null });
  });
});
