// A dropped screenshot tells the user why, by the reason /frame gave: "try again" only where trying
// again can work.
import { describe, expect, it } from 'vitest';
import { frameDropMessage } from '../../../renderer/frame-messages.ts';

describe('frameDropMessage', () => {
  it('says why, and offers a retry only for the rate limit', () => {
    expect(frameDropMessage('rate_limited')).toMatch(/try again/);
    expect(frameDropMessage('unsupported_by_model')).toBe(
      'The image was not sent: this live model does not take images.',
    );
    expect(frameDropMessage('unsupported_by_model')).not.toMatch(/try again/);
    expect(frameDropMessage('not_connected')).toMatch(/not connected/);
    expect(frameDropMessage('rejected: invalid_image: too small')).toBe(
      'The model service refused the image (invalid_image: too small).',
    );
    expect(frameDropMessage(undefined)).toBe('The image was dropped.');
  });
});
