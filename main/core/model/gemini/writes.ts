// How text and images are written on a Gemini socket (the SDK's Session): which message a model
// takes a text in (3.8 clientContent, 3.1 realtimeInput.text: setup.ts textInjectionKindFor) and the
// frame as JPEG. Apart from session.ts, which decides when and on which socket to write: this part is
// the wire shape only.
import type { Session } from '@google/genai';
import type { FrameSendResult } from '../../ports.ts';
import { toModelFrame } from '../frame-converter.ts';
import { textInjectionKindFor } from './setup.ts';

/** Context the model takes without answering; false where the model has no such message. */
export function writeContext(sdk: Session, model: string, text: string): boolean {
  // 3.8: clientContent without turnComplete "waits for more" (no reply, no interruption). The 3.1
  // models take text only as realtimeInput.text, which the model answers: nothing is sent there.
  if (textInjectionKindFor(model) !== 'clientContent') return false;
  sdk.sendClientContent({ turns: [{ role: 'user', parts: [{ text }] }], turnComplete: false });
  return true;
}

/** Texts the model answers, in one message. */
export function writeTexts(sdk: Session, model: string, texts: readonly string[]): void {
  if (textInjectionKindFor(model) === 'realtimeText') sdk.sendRealtimeInput({ text: texts.join('\n') });
  else sdk.sendClientContent({ turns: [{ role: 'user', parts: texts.map((text) => ({ text })) }], turnComplete: true });
}

/** A camera or screen frame; `sdk` is asked after the conversion, so the frame goes on the socket active then. */
export async function writeFrame(image: Buffer, sdk: () => Session | null): Promise<FrameSendResult> {
  const frame = await toModelFrame(image);
  const session = sdk();
  if (!session) return { status: 'dropped', reason: 'not_connected' };
  session.sendRealtimeInput({ video: { data: frame.jpeg.toString('base64'), mimeType: 'image/jpeg' } });
  return { status: 'sent', width: frame.width, height: frame.height, bytes: frame.jpeg.length };
}
