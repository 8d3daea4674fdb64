// Patience per speaker (issue #52; docs/room.md "Patience per speaker"): GET /room/patience reads the
// setting, the call's patience and every speaker the learner lengthened it for; DELETE
// /room/patience/{speakerId} forgets what was learnt of one speaker (the dashboard's Reset, the CLI's
// `patience reset`). Both work with no call and with no voice platform (the store is the core's).
import { z } from 'zod';
import type { PatienceView, SpeakerPatienceView } from '../../api-types.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

/** What the routes need of the call's patience (bridge/call-patience.ts). */
export interface PatienceControl {
  view(): PatienceView;
  reset(speakerId: string): SpeakerPatienceView | null;
}

const SpeakerParams = z.object({ speakerId: z.string().regex(/^\d{17,20}$/) }).strict();

export const registerPatienceRoutes: RouteModule<{ patience: PatienceControl }> = (app, { patience }) => {
  app.get('/room/patience', async (): Promise<PatienceView> => patience.view());

  app.delete<{ Params: { speakerId: string } }>(
    '/room/patience/:speakerId',
    async (request): Promise<{ reset: SpeakerPatienceView }> => {
      const params = SpeakerParams.safeParse(request.params);
      if (!params.success)
        throw new HttpError(400, 'invalid_speaker_id', 'speakerId: a Discord user id (17–20 digits)');
      const reset = patience.reset(params.data.speakerId);
      if (!reset)
        throw new HttpError(
          404,
          'unknown_speaker',
          `nothing was learnt of speaker ${params.data.speakerId}: their patience is the call's already`,
        );
      return { reset };
    },
  );
};
