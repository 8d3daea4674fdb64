// The tray talks to the core the way curl does: over the sidecar's HTTP API with the bearer token,
// through the one typed client (main/core/sidecar-client). One channel for everything, so the tray
// and the dashboard can never disagree about the state. The tray wants bodies, not statuses: an
// error status becomes a SidecarRequestError (okBody).
import type { SidecarEvent, TalkState } from '../core/api-types.ts';
import { SidecarClient as CoreSidecarClient, okBody, type SidecarResponse } from '../core/sidecar-client/client.ts';
import { z } from 'zod';
import { SseParser } from './sse.ts';

export { SidecarRequestError, SidecarTokenRefusedError } from '../core/sidecar-client/client.ts';

/** The part of /health the tray reads: who in the call cannot be decrypted right now (DAVE). */
const DaveSpeakersHealth = z.object({
  dave: z
    .object({ speakers: z.array(z.object({ user_id: z.string(), deaf: z.boolean() })).optional() })
    .nullable()
    .optional(),
});

export interface SidecarClientOptions {
  baseUrl: string;
  token: string;
}

export class SidecarClient {
  readonly #client: CoreSidecarClient;

  constructor(options: SidecarClientOptions) {
    this.#client = new CoreSidecarClient({ baseUrl: options.baseUrl, token: options.token });
  }

  /** Speakers whose audio the bridge cannot decrypt now (/health `dave.speakers`), for the tray tooltip. */
  async undecryptableSpeakers(): Promise<string[]> {
    const health = DaveSpeakersHealth.parse(await this.#body(this.#client.health(), 'GET /health'));
    return (health.dave?.speakers ?? []).filter((s) => s.deaf).map((s) => s.user_id);
  }

  join(): Promise<unknown> {
    return this.#body(this.#client.join(), 'POST /join');
  }

  leave(): Promise<unknown> {
    return this.#body(this.#client.leave('tray'), 'GET /leave');
  }

  /** "Stop talking": cut the model's current reply. */
  interrupt(): Promise<unknown> {
    return this.#body(this.#client.interrupt(), 'POST /interrupt');
  }

  mute(muted: boolean): Promise<TalkState> {
    return this.#body(this.#client.mute(muted), 'POST /mute');
  }

  /** Push-to-talk mode (`enabled`) or the talk key (`held`). */
  ptt(change: { enabled?: boolean; held?: boolean }): Promise<TalkState> {
    return this.#body(this.#client.ptt(change), 'POST /ptt');
  }

  pushFrame(image: Uint8Array, mime: 'image/png' | 'image/jpeg' | 'image/webp'): Promise<unknown> {
    return this.#body(this.#client.pushFrame(image, mime), 'POST /frame');
  }

  /**
   * Follow `/events` until `signal` aborts, reconnecting after a drop (the core restarts, the
   * machine sleeps). `onEvent` receives each event; `onConnection` reports up/down for the tray.
   */
  async followEvents(
    onEvent: (event: SidecarEvent) => void,
    signal: AbortSignal,
    onConnection?: (up: boolean) => void,
    retryMs = 2000,
  ): Promise<void> {
    while (!signal.aborted) {
      try {
        const stream = await this.#client.stream('/events', signal);
        onConnection?.(true);
        const parser = new SseParser();
        stream.setEncoding('utf8');
        for await (const chunk of stream as AsyncIterable<string>) {
          for (const event of parser.push(chunk)) onEvent(event);
        }
      } catch {
        // Reported through onConnection; the loop retries.
      }
      if (signal.aborted) return;
      onConnection?.(false);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryMs);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }

  async #body<Body>(answer: Promise<SidecarResponse<Body>>, what: string): Promise<Body> {
    return okBody(await answer, what);
  }
}
