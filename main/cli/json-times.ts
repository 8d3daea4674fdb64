// `--json` output: the sidecar's answer as it came, with an ISO 8601 time (UTC, `…Z`) beside every
// epoch field, so a script or a person reading the JSON needs no conversion. The epoch fields stay
// (scripts compare numbers); the ISO ones are added next to them, named (docs/sidecar.md, "The CLI"):
// - `<name>_epoch` → `<name>`            (`fire_at_epoch` → `fire_at`)
// - any other epoch field → `<name>_iso` (`created_at` → `created_at_iso`, `since` → `since_iso`)
// - `delay_seconds` beside a `created_at` → `due_at` (when that delay ends: created_at + delay_seconds)

/** Fields that hold epoch seconds: `*_at`, `*_epoch`, `since`, `ts`, `lease_until`. */
const EPOCH_FIELD = /(_at|_epoch)$|^(since|ts|lease_until)$/;
/** 2001 to 5138: a number of seconds in this range is a moment, not a count or a duration. */
const EPOCH_RANGE = [1e9, 1e11] as const;

function isEpoch(key: string, value: unknown): value is number {
  return typeof value === 'number' && EPOCH_FIELD.test(key) && value >= EPOCH_RANGE[0] && value < EPOCH_RANGE[1];
}

export function isoOf(epochSeconds: number): string {
  return new Date(Math.round(epochSeconds * 1000)).toISOString();
}

/** The name of the ISO field beside epoch field `key`. */
export function isoFieldName(key: string): string {
  return key.endsWith('_epoch') ? key.slice(0, -'_epoch'.length) : `${key}_iso`;
}

/** A copy of `value` with the ISO fields added beside the epoch ones, at every depth. */
export function withIsoTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withIsoTimes);
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(source)) {
    out[key] = withIsoTimes(field);
    if (isEpoch(key, field) && !(isoFieldName(key) in source)) out[isoFieldName(key)] = isoOf(field);
    if (
      key === 'delay_seconds' &&
      typeof field === 'number' &&
      isEpoch('created_at', source.created_at) &&
      !('due_at' in source)
    ) {
      out.due_at = isoOf(source.created_at + field);
    }
  }
  return out;
}
