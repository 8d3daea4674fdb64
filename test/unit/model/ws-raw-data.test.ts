import { describe, expect, it } from 'vitest';
import { rawDataBytes } from '../../../main/core/model/wire/ws-raw-data.ts';

const message = '{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AAAA"}}]}}}';

describe('rawDataBytes', () => {
  it('hands back the Buffer ws delivered, not a copy of it', () => {
    const delivered = Buffer.from(message);
    const bytes = rawDataBytes(delivered);
    expect(bytes).toBe(delivered);
    expect(bytes.toString('utf8')).toBe(message);
  });

  it('joins fragments in order', () => {
    const whole = Buffer.from(message);
    const fragments = [whole.subarray(0, 10), whole.subarray(10, 40), whole.subarray(40)];
    expect(rawDataBytes(fragments).toString('utf8')).toBe(message);
  });

  it('reads an ArrayBuffer (binaryType arraybuffer) as the same bytes', () => {
    const whole = Buffer.from(message);
    const arrayBuffer = whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.length);
    expect(rawDataBytes(arrayBuffer).toString('utf8')).toBe(message);
  });
});
