// Opens both ends of a call at once, the voice channel and the model session, and settles both
// before deciding: when one fails (or the call is stopped meanwhile) the other may still be
// opening, and a model session opened after a failed join would stay live (and billing) with
// nobody to close it. The voice port is one connection, so leaving before its join settles could
// also race a later call's join.
import type { LiveModelSession, VoiceTarget } from '../ports.ts';
import { BridgeError, VoiceTargetError } from './types.ts';

export type CallOpening =
  | { ok: true; target: VoiceTarget; session: LiveModelSession }
  /** `session`: opened anyway, for the caller to close; `wrongTarget`: the caller's mistake (a 4xx), passed on as is. */
  | { ok: false; failure: Error; wrongTarget: boolean; session: LiveModelSession | null };

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export async function openCallEnds(
  join: () => Promise<VoiceTarget>,
  connect: () => Promise<LiveModelSession>,
  cancelled: () => boolean,
): Promise<CallOpening> {
  const [joined, session] = await Promise.allSettled([join(), connect()]);
  const wrongTarget = joined.status === 'rejected' && joined.reason instanceof VoiceTargetError ? joined.reason : null;
  const failure =
    wrongTarget ??
    (joined.status === 'rejected'
      ? new BridgeError('join_failed', `could not join voice: ${errorText(joined.reason)}`)
      : session.status === 'rejected'
        ? new BridgeError('model_failed', `could not connect to the model: ${errorText(session.reason)}`)
        : cancelled()
          ? new BridgeError('cancelled', 'the call was stopped while it was connecting')
          : null);
  if (failure || joined.status === 'rejected' || session.status === 'rejected') {
    return {
      ok: false,
      failure: failure ?? new BridgeError('join_failed', 'the call could not be opened'),
      wrongTarget: wrongTarget !== null,
      session: session.status === 'fulfilled' ? session.value : null,
    };
  }
  return { ok: true, target: joined.value, session: session.value };
}
