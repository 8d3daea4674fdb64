// The call's errors as HTTP answers, shared by the call routes (bridge.ts) and the spoken-text routes
// (spoken-text.ts), which bridge.ts registers: kept apart so neither route module imports the other.
import { BridgeError } from '../../bridge/types.ts';
import { FrameError } from '../../model/frame-converter.ts';
import { HttpError } from '../errors.ts';

/** BridgeError (and an image that does not decode) → the HTTP answer a client can act on. */
export function bridgeHttpError(err: unknown): unknown {
  if (err instanceof FrameError)
    return new HttpError(err.code === 'image_too_large' ? 413 : 400, err.code, err.message);
  if (!(err instanceof BridgeError)) return err;
  switch (err.code) {
    case 'already_active':
    case 'no_call':
    case 'cancelled':
      return new HttpError(409, err.code, err.message);
    case 'not_configured':
      return new HttpError(503, err.code, err.message);
    case 'daily_cap_reached':
      return new HttpError(429, err.code, err.message);
    case 'join_failed':
    case 'model_failed':
      return new HttpError(502, err.code, err.message);
  }
}
