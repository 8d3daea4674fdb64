// The tray talks to the core the way curl does: over the sidecar's HTTP API with the bearer token.
// One channel for everything, so the tray and the dashboard can never disagree about the state.
import type { ApiErrorBody, SidecarEvent, TalkState } from '../core/api-types.ts';
import { z } from 'zod';
import { SseParser } from './sse.ts';

/** The part of /health the tray reads: who in the call cannot be decrypted right now (DAVE). */
const DaveSpeakersHealth = z.object({ dave: z.object({ speakers: z.array(z.object({ user_id: z.string(), deaf: z.boolean() })).optional() }).nullable().optional() });

export interface SidecarClientOptions {
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
}

export class SidecarRequestError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'SidecarRequestError';
    this.status = status;
    this.code = code;
  }
}

export class SidecarClient {
  readonly #baseUrl: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;

  constructor(options: SidecarClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/$/, '');
    this.#token = options.token;
    this.#fetch = options.fetch ?? fetch;
  }

  /** Speakers whose audio the bridge cannot decrypt now (/health `dave.speakers`), for the tray tooltip. */
  async undecryptableSpeakers(): Promise<string[]> {
    const health = DaveSpeakersHealth.parse(await this.#request('GET', '/health'));
    return (health.dave?.speakers ?? []).filter((s) => s.deaf).map((s) => s.user_id);
  }

  join(): Promise<unknown> {
    return this.#request('POST', '/join', { body: '{}', contentType: 'application/json' });
  }

  leave(): Promise<unknown> {
    return this.#request('GET', '/leave?by=tray');
  }

  /** "Stop talking": cut the model's current reply. */
  interrupt(): Promise<unknown> {
    return this.#request('POST', '/interrupt', { body: '{}', contentType: 'application/json' });
  }

  mute(muted: boolean): Promise<TalkState> {
    return this.#request('POST', '/mute', { body: JSON.stringify({ muted }), contentType: 'application/json' }) as Promise<TalkState>;
  }

  /** Push-to-talk mode (`enabled`) or the talk key (`held`). */
  ptt(body: { enabled?: boolean; held?: boolean }): Promise<TalkState> {
    return this.#request('POST', '/ptt', { body: JSON.stringify(body), contentType: 'application/json' }) as Promise<TalkState>;
  }

  pushFrame(image: Uint8Array, mime: 'image/png' | 'image/jpeg' | 'image/webp'): Promise<unknown> {
    return this.#request('POST', '/frame', { body: image, contentType: mime });
  }

  /**
   * Follow `/events` until `signal` aborts, reconnecting after a drop (the core restarts, the
   * machine sleeps). `onEvent` receives each event; `onConnection` reports up/down for the tray.
   */
  async followEvents(onEvent: (event: SidecarEvent) => void, signal: AbortSignal, onConnection?: (up: boolean) => void, retryMs = 2000): Promise<void> {
    while (!signal.aborted) {
      try {
        const response = await this.#fetch(`${this.#baseUrl}/events`, { headers: this.#headers(), signal });
        if (!response.ok || !response.body) throw new Error(`events stream answered ${response.status}`);
        onConnection?.(true);
        const parser = new SseParser();
        const decoder = new TextDecoder();
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          for (const event of parser.push(decoder.decode(chunk, { stream: true }))) onEvent(event);
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

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.#token}`, ...extra };
  }

  async #request(method: string, route: string, options: { body?: string | Uint8Array; contentType?: string } = {}): Promise<unknown> {
    const response = await this.#fetch(`${this.#baseUrl}${route}`, {
      method,
      headers: this.#headers(options.contentType ? { 'content-type': options.contentType } : {}),
      body: options.body as RequestInit['body'],
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: keep the text for the error message.
    }
    if (!response.ok) {
      const error = (body as Partial<ApiErrorBody> | null)?.error;
      throw new SidecarRequestError(response.status, error?.code ?? 'http_error', error?.message ?? `${method} ${route} answered ${response.status}`);
    }
    return body;
  }
}
