// The call's patience: the learner's window reaches the call (Bridge.setPatience) only when it
// changes, as the call's own level when nobody's learnt window is longer, and never between calls.
import { describe, expect, it } from 'vitest';
import type { Patience } from '../../../main/core/contracts/patience.ts';
import { ManualClock } from '../../../main/core/contracts/clock.ts';
import { CallPatience } from '../../../main/core/bridge/call-patience.ts';
import { MapPatienceMemory } from '../../../main/core/bridge/patience-learner.ts';

function setup() {
  const clock = new ManualClock(1_700_000_000_000);
  const memory = new MapPatienceMemory();
  memory.put({
    speakerId: 'ann',
    name: 'Ann',
    windowMs: 1400,
    cutoffs: 2,
    cleanTurns: 0,
    longestPauseMs: 0,
    updatedAt: 1,
  });
  const sent: Patience[] = [];
  let live = true;
  const patience = new CallPatience({ memory, setting: () => 'natural', clock });
  patience.bind({
    target: () => (live ? { setPatience: (p) => sent.push(p) } : null),
    name: (id) => (id === 'bob' ? 'Bob' : id),
  });
  return { clock, memory, sent, patience, endLive: () => (live = false) };
}

describe('CallPatience', () => {
  it('sends a learnt window while its speaker talks, and the call’s level once only others do', () => {
    const { clock, sent, patience } = setup();
    patience.beginCall('natural');
    patience.speechStarted('bob');
    expect(sent).toEqual([]); // Bob has the call's patience: the session has it already
    patience.speechStarted('ann');
    expect(sent).toEqual([1400]);
    patience.speechEnded('ann');
    patience.speechEnded('bob');
    clock.advance(1400);
    patience.replyStarted();
    clock.advance(3000);
    patience.speechStarted('bob');
    expect(sent).toEqual([1400, 'natural']);
  });

  it('a join request’s patience is the floor; the view says the setting, the call’s and who was learnt', () => {
    const { sent, patience } = setup();
    patience.beginCall(1800);
    patience.speechStarted('ann');
    expect(sent).toEqual([]); // 1800 over Ann's 1400
    expect(patience.view()).toMatchObject({
      setting: 'natural',
      call: 1800,
      base_ms: 1800,
      current_ms: 1800,
      speakers: [{ name: 'Ann', window_ms: 1800, learnt: false }],
    });
    patience.endCall();
    expect(patience.view()).toMatchObject({
      call: null,
      base_ms: 800,
      speakers: [{ name: 'Ann', window_ms: 1400, learnt: true }],
    });
  });

  it('a person of the room is shown by name with their window; a reset mid-call goes back to the call’s level', () => {
    const { sent, patience } = setup();
    patience.beginCall('natural');
    expect(patience.speaker('bob', 'Bob')).toEqual({
      speaker_id: 'bob',
      name: 'Bob',
      window_ms: 800,
      learnt: false,
      cutoffs: 0,
      updated_at: null,
    });
    patience.speechStarted('ann');
    expect(patience.reset('ann')).toMatchObject({ name: 'Ann', window_ms: 800, learnt: false });
    expect(sent).toEqual([1400, 'natural']);
    expect(patience.reset('ann')).toBeNull();
  });

  it('a call opens with the longest learnt window of the voices it may hear, and sends nothing for it again', () => {
    const { sent, patience } = setup();
    expect(patience.beginCall('natural', ['bob'])).toBe('natural');
    patience.endCall();
    expect(patience.beginCall('natural', ['bob', 'ann'])).toBe(1400);
    patience.speechStarted('ann');
    expect(sent).toEqual([]);
    expect(patience.view().base_ms).toBe(800); // the floor stays the call's patience
  });

  it('sends nothing between calls', () => {
    const { sent, patience, endLive } = setup();
    endLive();
    patience.speechStarted('ann');
    expect(sent).toEqual([]);
  });
});
