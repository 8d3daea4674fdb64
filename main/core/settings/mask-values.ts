// What GET /settings may show of the non-secret settings: a secret pasted into one of them (the bot
// token in the persona, an API key in the channel id) is masked like it is in the logs. Known
// secrets (from the environment and the secret store) are masked wherever they appear; anything
// shaped like a secret is masked by the shared redaction rules. Only the view is masked: what is
// saved and what the core runs with are unchanged.
import { redactionMarker, redactText } from '../tools/helpers/redact.ts';

/** Known secrets shorter than this are not searched for (too likely to match ordinary text). */
const MIN_KNOWN_SECRET = 8;

function maskString(text: string, known: readonly string[]): string {
  let out = text;
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(redactionMarker('secret'));
  return redactText(out);
}

function maskAny(value: unknown, known: readonly string[]): unknown {
  if (typeof value === 'string') return maskString(value, known);
  if (Array.isArray(value)) return value.map((v) => maskAny(v, known));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskAny(v, known)]));
  return value;
}

/** `values` with every secret in them masked; the same object when none is. */
export function maskSecretsInValues<T extends Record<string, unknown>>(
  values: T,
  knownSecrets: readonly (string | undefined)[],
): T {
  const known = [...new Set(knownSecrets.map((s) => s?.trim() ?? '').filter((s) => s.length >= MIN_KNOWN_SECRET))].sort(
    (a, b) => b.length - a.length,
  );
  const masked = maskAny(values, known) as T;
  return JSON.stringify(masked) === JSON.stringify(values) ? values : masked;
}
