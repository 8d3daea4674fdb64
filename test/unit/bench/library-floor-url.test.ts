// The library floor's socket to each provider's fake (bench/lib/library-floor-call.ts floorModelUrl):
// the paths the fakes serve (main/fakes/gemini, main/fakes/openai/realtime/server.ts, live/server.ts).
import { describe, expect, it } from 'vitest';
import { floorModelUrl } from '../../../bench/lib/library-floor-call.ts';

describe('library floor model URL', () => {
  it('speaks each fake on its own path, the key where that service takes it', () => {
    expect(
      floorModelUrl('gemini', { GEMINI_LIVE_BASE_URL: 'http://127.0.0.1:9/', GEMINI_API_KEY: 'k1' }, 'gemini-3.8-live'),
    ).toEqual({
      url: 'ws://127.0.0.1:9/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=k1',
      key: 'k1',
    });
    expect(
      floorModelUrl(
        'openai-realtime',
        { OPENAI_REALTIME_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k2' },
        'gpt-realtime-2.1',
      ),
    ).toEqual({ url: 'ws://127.0.0.1:9/v1/realtime?model=gpt-realtime-2.1', key: 'k2' });
    // GPT-Live refuses query parameters: the model goes in session.start.
    expect(
      floorModelUrl(
        'openai-live',
        { OPENAI_LIVE_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k3' },
        'gpt-live-1.1',
      ),
    ).toEqual({ url: 'ws://127.0.0.1:9/v1/live/sessions', key: 'k3' });
  });
});
