// The call panel's one derivation (renderer/call-view-state.ts) and the model's state at a glance
// (renderer/model-activity.ts): what a person reads and can press in each state.
import { describe, expect, it } from 'vitest';
import type { TalkState } from '../../../main/core/api-types.ts';
import { deriveCallView } from '../../../renderer/call-view-state.ts';
import type { PageLink } from '../../../renderer/format.ts';
import { mayInWords, toolWords } from '../../../renderer/tool-words.ts';
import { INITIAL_ACTIVITY, nextActivity, settle, THINKING_MS } from '../../../renderer/model-activity.ts';

const OPEN: TalkState = { muted: false, ptt: { enabled: false, held: false }, to_model: true };
const MUTED: TalkState = { muted: true, ptt: { enabled: false, held: false }, to_model: false };
const LIVE = 'Live: the model hears the call.';

describe('the call panel derivation', () => {
  it('says Live only in a call; before setup, idle, joining or after Leave the talk controls wait with a reason', () => {
    expect(deriveCallView({ link: 'live', state: 'connected', missing: null, talk: OPEN })).toMatchObject({
      phase: 'in-call',
      talkLine: LIVE,
      mute: { enabled: true },
      ptt: { enabled: true },
      stopTalking: true,
      say: true,
      leave: true,
      join: false,
    });
    for (const [state, missing] of [
      ['idle', null],
      ['stopped', null],
      ['idle', 'GEMINI_API_KEY'],
      ['connecting', null],
      ['error', null],
    ] as const) {
      const view = deriveCallView({ link: 'live', state, missing, talk: OPEN });
      expect(view.talkLine, `${state} ${missing}`).not.toBe(LIVE);
      expect(view.talkLine, `${state} ${missing}`).toMatch(/^(No call|Joining)/);
      expect(view, `${state} ${missing}`).toMatchObject({
        mute: { enabled: false },
        ptt: { enabled: false },
        hold: { enabled: false },
        stopTalking: false,
        say: false,
      });
    }
    expect(deriveCallView({ link: 'live', state: 'idle', missing: 'GEMINI_API_KEY', talk: OPEN })).toMatchObject({
      phase: 'unconfigured',
      badgeText: 'not set up',
      join: false,
    });
  });

  it('a parked call is still a call: not "Live", but Leave, Mute and the message box act on it (text wakes the model)', () => {
    const view = deriveCallView({ link: 'live', state: 'parked', missing: null, talk: OPEN });
    expect(view).toMatchObject({
      phase: 'parked',
      badgeText: 'parked',
      leave: true,
      say: true,
      stopTalking: false,
      join: false,
      mute: { enabled: true },
      ptt: { enabled: true },
    });
    expect(view.talkLine).not.toBe(LIVE);
    expect(view.talkLine).toMatch(/^Parked: .*wakes it/);
    expect(deriveCallView({ link: 'live', state: 'parked', missing: null, talk: MUTED }).talkLine).toMatch(
      /^Muted: the model hears nobody/,
    );
  });

  it('a page not linked to the core shows no state of its own and offers nothing', () => {
    for (const link of ['loading', 'disconnected', 'signed-out'] as const) {
      const view = deriveCallView({ link, state: 'connected', missing: null, talk: MUTED });
      expect(view).toMatchObject({
        phase: link,
        talkLine: '',
        muted: false,
        join: false,
        leave: false,
        say: false,
        stopTalking: false,
        mute: { enabled: false },
      });
    }
  });

  it('a muted call reads "muted" in red; muted between calls, Unmute stays offered', () => {
    expect(deriveCallView({ link: 'live', state: 'connected', missing: null, talk: MUTED })).toMatchObject({
      badgeState: 'muted',
      badgeText: 'connected · muted',
      muted: true,
      talkLine: 'Muted: the model hears nobody.',
    });
    expect(deriveCallView({ link: 'live', state: 'idle', missing: null, talk: MUTED })).toMatchObject({
      muted: true,
      mute: { enabled: true },
      ptt: { enabled: false },
      talkLine: 'Muted: you will join muted (Unmute to join open).',
    });
  });
});

describe('the model at a glance', () => {
  const quiet = { output: { rms: 0, peak: 0 }, speaking: [] };
  const talking = { output: { rms: 0, peak: 0 }, speaking: ['owner'] };
  const answering = { output: { rms: 0.2, peak: 0.4 }, speaking: [] };

  it('listening while someone speaks, thinking once they stop, speaking while its voice plays, then listening', () => {
    let s = nextActivity(INITIAL_ACTIVITY, talking, 0);
    expect(s.activity).toBe('listening');
    s = nextActivity(s, quiet, 100);
    expect(s.activity).toBe('thinking');
    s = nextActivity(s, answering, 900);
    expect(s.activity).toBe('speaking');
    s = nextActivity(s, quiet, 2000);
    expect(s.activity).toBe('listening');
    // Silence after the model spoke is not "thinking".
    expect(nextActivity(s, quiet, 2100).activity).toBe('listening');
  });

  it('thinking runs out when no answer comes', () => {
    const thinking = nextActivity(nextActivity(INITIAL_ACTIVITY, talking, 0), quiet, 0);
    expect(settle(thinking, THINKING_MS - 1).activity).toBe('thinking');
    expect(settle(thinking, THINKING_MS).activity).toBe('listening');
  });
});

describe('the header pill, the primary button and the screenshot panel', () => {
  it('the pill says the call’s state, never "live" for a stopped or unconfigured bridge', () => {
    const pill = (
      state: Parameters<typeof deriveCallView>[0]['state'],
      missing: string | null = null,
      talk: TalkState = OPEN,
    ) => deriveCallView({ link: 'live', state, missing, talk }).pill;
    expect(pill('stopped')).toEqual({ text: 'not in a call', kind: 'info' });
    expect(pill('idle', 'GEMINI_API_KEY')).toEqual({ text: 'not set up', kind: 'warn' });
    expect(pill('connected')).toEqual({ text: 'in a call', kind: 'ok' });
    expect(pill('connected', null, MUTED)).toEqual({ text: 'in a call · muted', kind: 'warn' });
    expect(pill('parked').text).toBe('in a call · model parked');
    expect(pill('error').kind).toBe('error');
    for (const state of ['idle', 'stopped', 'connected', 'parked', 'error', 'connecting'] as const)
      expect(pill(state).text).not.toMatch(/live/i);
  });

  it('the primary action follows the state: Set up, then Join between calls, Leave in one', () => {
    const primary = (state: Parameters<typeof deriveCallView>[0]['state'], missing: string | null = null) =>
      deriveCallView({ link: 'live', state, missing, talk: OPEN }).primary;
    expect(primary('idle', 'GEMINI_API_KEY')).toBe('setup');
    expect(primary('stopped')).toBe('join');
    expect(primary('connecting')).toBe('leave');
    expect(primary('connected')).toBe('leave');
    expect(primary('parked')).toBe('leave');
    expect(deriveCallView({ link: 'disconnected', state: 'connected', missing: null, talk: OPEN }).primary).toBeNull();
  });

  it('Capture waits with a reason outside a call, and works in one (parked too: a frame wakes the model)', () => {
    const frame = (
      link: PageLink,
      state: Parameters<typeof deriveCallView>[0]['state'],
      missing: string | null = null,
    ) => deriveCallView({ link, state, missing, talk: OPEN }).frame;
    expect(frame('live', 'connected')).toEqual({ enabled: true });
    expect(frame('live', 'parked')).toEqual({ enabled: true });
    expect(frame('live', 'stopped')).toEqual({
      enabled: false,
      reason: 'No call: join voice first; a screenshot goes to the model during a call.',
    });
    expect(frame('live', 'idle', 'GEMINI_API_KEY')).toMatchObject({
      enabled: false,
      reason: expect.stringMatching(/^No call: set up first/),
    });
    expect(frame('disconnected', 'connected')).toMatchObject({ enabled: false });
  });
});

describe('the room view in words', () => {
  it('names the owner-only tools as a person would, not by their internal names', () => {
    expect(toolWords('local_notify_schedule (cancel)')).toBe('cancelling reminders');
    expect(toolWords('local_delegate_execute (start, cancel)')).toBe('starting or cancelling delegated tasks');
    expect(toolWords('mcp_everything_echo')).toBe('the MCP tool “everything echo”');
    const ownerOnly = ['local_notify_schedule (cancel)', 'local_delegate_execute (start, cancel)'];
    expect(
      mayInWords('everything but local_notify_schedule (cancel), local_delegate_execute (start, cancel)', ownerOnly),
    ).toBe('everything but cancelling reminders, starting or cancelling delegated tasks');
  });
});
