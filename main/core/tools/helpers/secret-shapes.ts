// Shape tests that tell a random-looking secret from ordinary technical words. The redaction rules
// use them as validators so a loose regex (a key-ish word followed by "something long") does not
// eat hostnames, version numbers, UUIDs, commit hashes, file paths or prose.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-f]+$/i;
/** `some-hyphenated_words` or `CONSTANT_NAMES`: identifiers, not secrets. */
const WORDY = /^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)(?:[-_.](?:[a-z]+|[A-Z]+|[A-Z][a-z]+|\d{1,4}))*$/;
/** camelCase / PascalCase identifiers built from lowercase-run words. */
const CAMEL = /^[a-z]+(?:[A-Z][a-z]+)+$|^(?:[A-Z][a-z]+){2,}$/;

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function characterClasses(value: string): number {
  let lower = 0;
  let upper = 0;
  let digit = 0;
  let other = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 97 && c <= 122) lower = 1;
    else if (c >= 65 && c <= 90) upper = 1;
    else if (c >= 48 && c <= 57) digit = 1;
    else other = 1;
  }
  return lower + upper + digit + other;
}

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A path such as `/usr/local/bin` or `src/core/index.ts`: every segment is a plain word or number. */
export function looksLikePath(value: string): boolean {
  if (!value.includes('/')) return false;
  return value
    .split('/')
    .every(
      (seg) => seg === '' || seg === '.' || seg === '..' || /^\d+$/.test(seg) || WORDY.test(seg) || CAMEL.test(seg),
    );
}

/**
 * True when `value` looks machine-generated: long enough, several character classes, high
 * entropy, and not a UUID, identifier, path or (unless `allowHex`) a bare hex digest.
 */
export function looksRandom(value: string, options: { minLength?: number; allowHex?: boolean } = {}): boolean {
  const minLength = options.minLength ?? 16;
  if (value.length < minLength) return false;
  if (isUuid(value) || WORDY.test(value) || CAMEL.test(value)) return false;
  if (HEX.test(value)) return options.allowHex === true && shannonEntropy(value) >= 3;
  if (looksLikePath(value)) return false;
  if (characterClasses(value) < 2) return false;
  // Random base62 reaches ~log2(len) bits for short strings; 3.2 keeps real keys and drops words.
  return shannonEntropy(value) >= Math.min(3.2, Math.log2(value.length) - 0.8);
}

const PLACEHOLDER =
  /^(?:<[^>]*>|\$\{[^}]*\}|\$[A-Z_][A-Z0-9_]*|%[A-Z_]+%|\{\{[^}]*\}\}|\[REDACTED[^\]]*\]|\*+|x{3,}|\.{3,}|…|null|none|nil|undefined|true|false|yes|no|on|off|empty|changeme|example|your[-_a-z]*|process\.env\.[A-Za-z0-9_]+|os\.environ.*|env\(.*\))$/i;

/** Values that are obviously not secrets: templates, placeholders, booleans, redaction markers. */
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value);
}

/**
 * A value assigned to a secret-named key (`password: …`, `API_KEY=…`). Names already say "secret",
 * so the bar is lower than `looksRandom`, but plain prose words and small numbers stay.
 */
export function plausibleAssignedSecret(value: string): boolean {
  if (value.length < 6 || isPlaceholder(value)) return false;
  if (/^\d{1,7}$/.test(value)) return false; // limits, ports, counts
  if (/^[a-z]+$/.test(value) && value.length < 12) return false; // "expired", "missing", "rotated"
  if (/^[a-z]+(?:[-_ ][a-z]+)+$/.test(value) && value.length < 20) return false; // "not-set", "see_below"
  if (looksLikePath(value) && value.startsWith('/')) return false;
  return true;
}
