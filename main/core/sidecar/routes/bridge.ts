// Call routes: POST /join, GET /stop, GET /leave, POST /interrupt, POST /frame; /say, /announce, /ask (routes/spoken-text.ts). (GET /notes: routes/notes.ts.)
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { VoiceTargetError, type BridgeControl } from '../../bridge/types.ts';
import { sniffImageKind } from '../../model/frame-converter.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';
import { acceptImageBodies, IMAGE_BODY_LIMIT } from '../server.ts';
import { zodErrorMessage } from '../../input-errors.ts';
import { PatienceSchema, TurnSilenceCapSchema } from '../../settings/schema.ts';
import { bridgeHttpError } from './bridge-errors.ts';
import { registerSpokenTextRoutes } from './spoken-text.ts';

/** The states in which a frame can reach the model: connected, or parked / waking (it wakes the model). */
const FRAME_STATES: ReadonlySet<string> = new Set(['connected', 'parked', 'reconnecting']);

export interface BridgeRouteDeps {
  bridge: BridgeControl;
}

const Snowflake = z.string().regex(/^\d{17,20}$/, 'must be a Discord id');
const JoinBody = z
  .object({
    guild_id: Snowflake.optional(),
    channel_id: Snowflake.optional(),
    // This call's patience and silence cap over the settings (docs/audio.md "Patience").
    patience: PatienceSchema.optional(),
    turn_silence_cap_ms: TurnSilenceCapSchema.optional(),
  })
  .strict()
  .refine(
    (b) => (b.guild_id === undefined) === (b.channel_id === undefined),
    'give both guild_id and channel_id, or neither',
  );

/** Who may be named as ending a call (`GET /stop?by=`), and the reason the bridge records. */
export const STOPPED_BY = {
  cli: 'stopped from the command line',
  dashboard: 'stopped from the dashboard',
  tray: 'stopped from the tray',
  discord: 'stopped by a Discord command',
  mcp: 'stopped by an MCP client',
} as const;
const StopQuery = z.object({ by: z.enum(Object.keys(STOPPED_BY) as [keyof typeof STOPPED_BY]).optional() }).strict();

/**
 * A failure while parsing a multipart body. busboy reports a malformed body (no boundary, a part
 * that ends early) as a plain Error with no status, which would otherwise be a 500: it is the
 * client's upload that is broken, so it is a 400. @fastify/multipart's own errors carry a status and
 * a code (e.g. 413 FST_REQ_FILE_TOO_LARGE) that the server's error handler maps; they pass through.
 */
function multipartHttpError(err: unknown): unknown {
  if (err instanceof HttpError || !(err instanceof Error)) return err;
  if (typeof (err as { statusCode?: unknown }).statusCode === 'number') return err;
  return new HttpError(
    400,
    'invalid_multipart',
    'the multipart/form-data body is malformed (a missing boundary, or a part that ends early)',
  );
}

async function readMultipartImage(request: FastifyRequest): Promise<Buffer> {
  try {
    const file = await request.file({ limits: { fileSize: IMAGE_BODY_LIMIT, files: 1 } });
    if (!file) throw new HttpError(400, 'missing_image', 'multipart body has no file part');
    const bytes = await file.toBuffer();
    if (file.file.truncated)
      throw new HttpError(413, 'payload_too_large', `image is larger than ${IMAGE_BODY_LIMIT} bytes`);
    return bytes;
  } catch (err) {
    throw multipartHttpError(err);
  }
}

async function readFrameBody(request: FastifyRequest): Promise<Buffer> {
  if (request.isMultipart()) return readMultipartImage(request);
  if (!Buffer.isBuffer(request.body)) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      'send the image as the raw body (Content-Type: image/png, image/jpeg or image/webp) or as multipart/form-data',
    );
  }
  return request.body;
}

export const registerBridgeRoutes: RouteModule<BridgeRouteDeps> = (app, deps) => {
  const { bridge } = deps;

  app.post('/join', async (request) => {
    const body = JoinBody.safeParse(request.body === undefined ? {} : request.body);
    if (!body.success) throw new HttpError(400, 'invalid_request', zodErrorMessage(body.error));
    const target =
      body.data.guild_id && body.data.channel_id
        ? { guildId: body.data.guild_id, channelId: body.data.channel_id }
        : undefined;
    try {
      const { patience, turn_silence_cap_ms: turnSilenceCapMs } = body.data;
      return await bridge.start(target, {
        ...(patience !== undefined ? { patience } : {}),
        ...(turnSilenceCapMs !== undefined ? { turnSilenceCapMs } : {}),
      });
    } catch (err) {
      if (err instanceof VoiceTargetError) throw new HttpError(err.status, err.code, err.message);
      throw bridgeHttpError(err);
    }
  });

  // `?by=` names what ended the call, so the state line and the log say it ("stopped from the tray").
  const stop = async (request: FastifyRequest) => {
    const query = StopQuery.safeParse(request.query);
    if (!query.success)
      throw new HttpError(400, 'invalid_request', `by: one of ${Object.keys(STOPPED_BY).join(', ')} (or leave it out)`);
    // A Leave lets what waits to be said be spoken first (at most LEAVE_GRACE_MS), else reports it dropped.
    return bridge.stop(query.data.by === undefined ? 'stopped over the sidecar' : STOPPED_BY[query.data.by], {
      finishSpeaking: true,
    });
  };
  app.get('/stop', stop);
  app.get('/leave', stop);

  // GET|POST /say, /announce, /ask: routes/spoken-text.ts.
  registerSpokenTextRoutes(app, { bridge });

  // "Stop talking" (the page's and the tray's button): the model's current reply stops at once.
  app.post('/interrupt', async () => {
    const answer = bridge.interruptReply?.();
    if (!answer?.interrupted) throw new HttpError(409, 'no_call', 'no live call: the model is not talking');
    return answer;
  });

  // Only /frame takes binary bodies: the image parser (8 MiB) and multipart live in this scope alone,
  // so every other route keeps the 64 KiB JSON-only rule and answers a binary body with 415.
  app.register(async (scope) => {
    acceptImageBodies(scope);
    await scope.register(multipart, { limits: { fileSize: IMAGE_BODY_LIMIT, files: 1, fields: 4 } });
    scope.post('/frame', async (request) => {
      const bytes = await readFrameBody(request);
      if (bytes.length === 0) throw new HttpError(400, 'empty_body', 'no image bytes in the request');
      // The type is decided by the bytes; a Content-Type header is only a claim.
      const kind = sniffImageKind(bytes);
      if (!kind) throw new HttpError(415, 'unsupported_image', 'the body is not a JPEG, PNG or WebP image');
      // A parked call (or one waking) is a call: the bridge wakes the model for the frame (call-requests.ts).
      if (!FRAME_STATES.has(bridge.status().state))
        throw new HttpError(409, 'no_call', 'no live call to send the frame to');
      try {
        return { ...(await bridge.sendFrame(bytes)), input_type: kind };
      } catch (err) {
        throw bridgeHttpError(err);
      }
    });
  });
};
