// Dashboard logins: a one-time nonce in a login URL becomes an HttpOnly SameSite=Strict cookie.
// The bearer token itself never enters a URL (URLs end up in history and logs).
import { randomBytes } from 'node:crypto';
import { secretsEqual } from './token.ts';

export const SESSION_COOKIE = 'lvb_session';
const NONCE_TTL_MS = 15 * 60_000;
const MAX_PENDING_NONCES = 32;
const MAX_SESSIONS = 64;
/** A dashboard login lasts this long (the cookie's Max-Age too); then a fresh login URL is needed. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;

export class DashboardSessions {
  readonly #nonces = new Map<string, number>();
  /** Session id → expiry (epoch ms). */
  readonly #sessions = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A fresh single-use nonce, valid for 15 minutes. */
  createNonce(): string {
    this.#expire();
    while (this.#nonces.size >= MAX_PENDING_NONCES) this.#nonces.delete(this.#nonces.keys().next().value!);
    const nonce = randomBytes(24).toString('base64url');
    this.#nonces.set(nonce, this.#now() + NONCE_TTL_MS);
    return nonce;
  }

  /** Consume a nonce; returns a new session id, or null when the nonce is unknown, used or expired. */
  redeem(nonce: string): string | null {
    this.#expire();
    for (const [candidate] of this.#nonces) {
      if (secretsEqual(nonce, candidate)) {
        this.#nonces.delete(candidate);
        if (this.#sessions.size >= MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
        const session = randomBytes(32).toString('base64url');
        this.#sessions.set(session, this.#now() + SESSION_TTL_MS);
        return session;
      }
    }
    return null;
  }

  /** False for an unknown session and for one older than SESSION_TTL_MS. */
  isValidSession(session: string): boolean {
    this.#expire();
    for (const [candidate] of this.#sessions) if (secretsEqual(session, candidate)) return true;
    return false;
  }

  #expire(): void {
    const now = this.#now();
    for (const [nonce, expiresAt] of this.#nonces) if (expiresAt <= now) this.#nonces.delete(nonce);
    for (const [session, expiresAt] of this.#sessions) if (expiresAt <= now) this.#sessions.delete(session);
  }
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}
