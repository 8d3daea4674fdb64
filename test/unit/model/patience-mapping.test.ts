// The one patience setting as each service receives it (issue #52; docs/audio.md "Patience"): the
// setup / session.update JSON pinned per provider for quick, natural, patient and an explicit ms.
import { describe, expect, it } from 'vitest';
import type { Patience } from '../../../main/core/contracts/patience.ts';
import { parsePatience } from '../../../main/core/contracts/patience.ts';
import { buildLiveConfig } from '../../../main/core/model/gemini/setup.ts';
import { buildPatienceUpdate, buildSessionUpdate } from '../../../main/core/model/openai/realtime/dialect.ts';
import type { RealtimeSessionInput } from '../../../main/core/model/realtime-wire/dialect.ts';
import { XAI_DIALECT, xaiSessionUpdate } from '../../../main/core/model/xai/dialect.ts';

const PATIENCES: Patience[] = ['quick', 'natural', 'patient', 1200];

function realtimeInput(
  patience: Patience,
  turnDetection: RealtimeSessionInput['turnDetection'] = 'semantic_vad',
): RealtimeSessionInput {
  return {
    model: 'm',
    voice: 'marin',
    tools: [],
    turnDetection,
    patience,
    transcriptionModel: 'gpt-4o-transcribe',
    inputRate: 24_000,
  };
}

describe('patience → Gemini automaticActivityDetection (setup; taken again at each resume)', () => {
  it.each([
    ['quick', { disabled: false, endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH', silenceDurationMs: 500 }],
    ['natural', { disabled: false, endOfSpeechSensitivity: 'END_SENSITIVITY_LOW', silenceDurationMs: 800 }],
    ['patient', { disabled: false, endOfSpeechSensitivity: 'END_SENSITIVITY_LOW', silenceDurationMs: 1400 }],
    [1200, { disabled: false, endOfSpeechSensitivity: 'END_SENSITIVITY_LOW', silenceDurationMs: 1200 }],
    [300, { disabled: false, endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH', silenceDurationMs: 300 }],
  ] as [Patience, object][])('%s', (patience, aad) => {
    expect(buildLiveConfig({ voice: 'Kore', tools: [], patience }).realtimeInputConfig).toEqual({
      automaticActivityDetection: aad,
    });
  });

  it('natural when none is given', () => {
    expect(
      buildLiveConfig({ voice: 'Kore', tools: [] }).realtimeInputConfig?.automaticActivityDetection?.silenceDurationMs,
    ).toBe(800);
  });
});

describe('patience → OpenAI Realtime turn_detection', () => {
  const td = (patience: Patience, mode?: RealtimeSessionInput['turnDetection']) =>
    (
      buildSessionUpdate(realtimeInput(patience, mode), 'e') as {
        session: { audio: { input: { turn_detection: unknown } } };
      }
    ).session.audio.input.turn_detection;

  it('semantic_vad (the default): eagerness from the level', () => {
    expect(td('quick')).toEqual({
      type: 'semantic_vad',
      eagerness: 'high',
      create_response: true,
      interrupt_response: false,
    });
    expect(td('natural')).toEqual({
      type: 'semantic_vad',
      eagerness: 'medium',
      create_response: true,
      interrupt_response: false,
    });
    expect(td('patient')).toEqual({
      type: 'semantic_vad',
      eagerness: 'low',
      create_response: true,
      interrupt_response: false,
    });
  });

  it('an explicit ms is server_vad with that silence_duration_ms', () => {
    expect(td(1200)).toEqual({
      type: 'server_vad',
      silence_duration_ms: 1200,
      prefix_padding_ms: 300,
      create_response: true,
      interrupt_response: false,
    });
  });

  it('server_vad chosen: the level is its silence window', () => {
    expect(PATIENCES.map((p) => (td(p, 'server_vad') as { silence_duration_ms: number }).silence_duration_ms)).toEqual([
      500, 800, 1400, 1200,
    ]);
  });

  it('mid-session: a session.update carrying only the turn detection', () => {
    expect(buildPatienceUpdate({ patience: 'patient', turnDetection: 'semantic_vad' }, 'evt_patience_1')).toEqual({
      type: 'session.update',
      event_id: 'evt_patience_1',
      session: {
        type: 'realtime',
        audio: {
          input: {
            turn_detection: {
              type: 'semantic_vad',
              eagerness: 'low',
              create_response: true,
              interrupt_response: false,
            },
          },
        },
      },
    });
  });
});

describe('patience → xAI server_vad', () => {
  it.each([
    ['quick', 500],
    ['natural', 800],
    ['patient', 1400],
    [1200, 1200],
  ] as [Patience, number][])('%s → silence_duration_ms %d', (patience, ms) => {
    const want = {
      type: 'server_vad',
      threshold: 0.5,
      silence_duration_ms: ms,
      prefix_padding_ms: 300,
      create_response: true,
      interrupt_response: false,
    };
    expect(
      (
        xaiSessionUpdate({ ...realtimeInput(patience), inputRate: 16_000 }, 'e') as {
          session: { turn_detection: unknown };
        }
      ).session.turn_detection,
    ).toEqual(want);
    expect(XAI_DIALECT.patienceUpdate({ patience, turnDetection: 'server_vad' }, 'e2')).toEqual({
      type: 'session.update',
      event_id: 'e2',
      session: { turn_detection: want },
    });
  });
});

describe('patience as text (config, settings, CLI)', () => {
  it('a level or whole ms within the bounds', () => {
    expect(['quick', ' Natural ', 'patient', '1200', '200', '5000'].map(parsePatience)).toEqual([
      'quick',
      'natural',
      'patient',
      1200,
      200,
      5000,
    ]);
    expect(['slow', '199', '5001', '1.5', '', '-300'].map(parsePatience)).toEqual([null, null, null, null, null, null]);
  });
});
