// The redaction rules, most specific first. Each rule names the kind of secret it finds (shown to
// the reader as `[REDACTED:<kind>]`), a cheap `hint` tested before the full pattern runs, the
// pattern itself, which capture group holds the secret (the whole match otherwise) and an optional
// validator. Validators are where precision comes from: a JWT must carry a JSON header, a Discord
// token's first segment must decode to a snowflake, a "long string near the word key" must look
// random and not be a UUID, commit hash or path. The predecessor's `a.b.c` → JWT rule is gone.
import { isPlaceholder, looksLikePath, looksRandom, plausibleAssignedSecret } from './secret-shapes.ts';

export interface RedactionRule {
  kind: string | ((match: RegExpExecArray) => string);
  hint: RegExp;
  /** Global; with the `d` flag when `group` is set. */
  pattern: RegExp;
  /** Capture groups holding the secret; the first one that participated is used. */
  groups?: readonly number[];
  validate?: (secret: string, match: RegExpExecArray, text: string) => boolean;
}

/** Characters that end a URL in prose, JSON, logs and markdown. */
const URL_CHARS = String.raw`[^\s"'<>\`\\)\]}|]`;
const B64URL = '[A-Za-z0-9_-]';

function decodeBase64Url(segment: string): string | null {
  try {
    return Buffer.from(segment.replace(/=+$/, ''), 'base64url').toString('utf8');
  } catch {
    return null;
  }
}

function hasJsonHeader(token: string): boolean {
  const header = decodeBase64Url(token.slice(0, token.indexOf('.')));
  if (!header?.startsWith('{')) return false;
  try {
    const parsed = JSON.parse(header) as unknown;
    return (
      typeof parsed === 'object' && parsed !== null && ['alg', 'typ', 'enc', 'kid', 'cty'].some((k) => k in parsed)
    );
  } catch {
    return false;
  }
}

function firstSegmentIsSnowflake(token: string): boolean {
  const id = decodeBase64Url(token.slice(0, token.indexOf('.')));
  return id !== null && /^\d{17,20}$/.test(id);
}

/** The text just before a candidate says it is a commit/hash/id, not a credential. */
function digestContextBefore(text: string, index: number): boolean {
  return /(?:commit|sha(?:1|256|512)?|hash|digest|checksum|rev(?:ision)?|etag|build|image|\bid)\b[^\n]{0,12}$/i.test(
    text.slice(Math.max(0, index - 24), index),
  );
}

const SECRET_NAME = String.raw`[A-Za-z0-9_.-]*?(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|credentials?|webhook[_-]?url|dsn)`;
const INLINE_SPACE = String.raw`[^\S\r\n]*`;

export const REDACTION_RULES: readonly RedactionRule[] = [
  {
    kind: 'pem_private_key',
    hint: /PRIVATE KEY/,
    pattern:
      /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  {
    kind: 'discord_webhook',
    hint: /discord(?:app)?\.com/i,
    pattern: new RegExp(
      String.raw`(?:https?://)?(?:(?:ptb|canary|www)\.)?discord(?:app)?\.com/api(?:/v\d{1,2})?/webhooks/\d{15,22}/${B64URL}{20,}(?:[/?#]${URL_CHARS}*)?`,
      'gi',
    ),
  },
  {
    kind: 'slack_webhook',
    hint: /hooks\.slack/i,
    pattern: new RegExp(
      String.raw`(?:https?://)?hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/${URL_CHARS}{8,}`,
      'gi',
    ),
  },
  {
    kind: 'teams_webhook',
    hint: /webhook|logic\.azure|powerplatform/i,
    pattern: new RegExp(
      String.raw`(?:https?://)?(?:[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/|outlook\.office(?:365)?\.com/webhook(?:b2)?/)${URL_CHARS}+|https?://[A-Za-z0-9.-]+\.(?:logic\.azure\.com|powerplatform\.com)(?::\d+)?/${URL_CHARS}*?[?&]sig=${URL_CHARS}+`,
      'gi',
    ),
  },
  {
    kind: 'jwt',
    hint: /eyJ/,
    pattern: new RegExp(
      String.raw`(?<![A-Za-z0-9_-])eyJ${B64URL}{10,}={0,2}\.${B64URL}{2,}={0,2}\.${B64URL}*={0,2}(?:\.${B64URL}+\.${B64URL}+)?`,
      'g',
    ),
    validate: (token) => hasJsonHeader(token),
  },
  { kind: 'google_api_key', hint: /AIza/, pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  {
    kind: 'google_oauth_token',
    hint: /ya29\.|GOCSPX-/,
    pattern: /(?<![A-Za-z0-9_-])(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})/g,
  },
  { kind: 'anthropic_api_key', hint: /sk-ant-/, pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  {
    kind: 'openai_api_key',
    hint: /sk-/,
    pattern: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    validate: (key) => looksRandom(key.replace(/^sk-(?:proj-|svcacct-|admin-)?/, ''), { minLength: 20 }),
  },
  {
    kind: 'github_token',
    hint: /gh[pousr]_|github_pat_/,
    pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])/g,
  },
  {
    kind: 'gitlab_token',
    hint: /gl[a-z]{1,6}-/,
    pattern: /(?<![A-Za-z0-9_-])gl(?:pat|dt|ptt|rt|cbt|oas|soat|ft|imt|agent|ffct)-[A-Za-z0-9_-]{20,}/g,
  },
  {
    kind: 'slack_token',
    hint: /xox|xapp-/,
    pattern: /(?<![A-Za-z0-9_-])(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g,
  },
  {
    kind: 'stripe_key',
    hint: /_live_|_test_|whsec_/,
    pattern: /(?<![A-Za-z0-9_])(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{24,})/g,
  },
  {
    kind: 'aws_access_key_id',
    hint: /A(?:KIA|SIA|BIA|CCA|3T)/,
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'aws_secret_access_key',
    hint: /secret_?access_?key/i,
    pattern: /(?:aws_?)?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/dgi,
    groups: [1],
  },
  {
    kind: 'telegram_bot_token',
    hint: /:AA/,
    pattern: /(?:(?<=\/bot)|(?<![A-Za-z0-9_]))\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g,
  },
  { kind: 'npm_token', hint: /npm_/, pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
  {
    kind: 'huggingface_token',
    hint: /hf_/,
    pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])/g,
    validate: (t) => looksRandom(t.slice(3)),
  },
  {
    kind: 'sendgrid_api_key',
    hint: /SG\./,
    pattern: /(?<![A-Za-z0-9_])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}(?![A-Za-z0-9_-])/g,
  },
  {
    kind: 'discord_bot_token',
    hint: /[MNO][A-Za-z0-9_-]{23}|mfa\./,
    pattern:
      /(?<![A-Za-z0-9_-])(?:[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}|mfa\.[A-Za-z0-9_-]{80,})(?![A-Za-z0-9_-])/g,
    validate: (token) => token.startsWith('mfa.') || firstSegmentIsSnowflake(token),
  },
  {
    kind: 'url_credentials',
    hint: /:\/\//,
    pattern: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s:/?#@"'<>`]*:([^\s/?#@"'<>`]+)@/dgi,
    groups: [1],
    validate: (password) => !isPlaceholder(password),
  },
  {
    kind: (m) => (/^basic$/i.test(m[1] ?? '') ? 'basic_auth' : 'bearer_token'),
    hint: /authorization/i,
    pattern:
      /\b(?:proxy-)?authorization["']?[^\S\r\n]*[:=][^\S\r\n]*["']?(?:(bearer|basic|bot|token|digest|apikey)[^\S\r\n]+)?([^\s"',;]{6,})/dgi,
    groups: [2],
    // `Authorization: required`, `authorization=denied` are prose: without a scheme the value must
    // look like a credential (digits, mixed case, symbols), not a plain word.
    validate: (value, match) =>
      !isPlaceholder(value) && !value.startsWith('[REDACTED') && (match[1] !== undefined || !/^[A-Za-z]+$/.test(value)),
  },
  {
    kind: 'bearer_token',
    hint: /bearer/i,
    pattern: /\bbearer[^\S\r\n]+([A-Za-z0-9._~+/-]{16,}=*)/dgi,
    groups: [1],
    validate: (token) => looksRandom(token.replace(/[.~+/=]/g, ''), { minLength: 16, allowHex: true }),
  },
  {
    kind: 'secret_param',
    hint: /[?&;#][a-z_-]*(?:token|key|secret|passw|pwd|sig|credential)[a-z_-]*=/i,
    pattern:
      /[?&;#](?:access_token|refresh_token|id_token|auth_token|private_token|token|api[_-]?key|apikey|key|secret|client_secret|password|passwd|pwd|sig|signature|x-amz-signature|x-amz-credential|x-goog-signature|x-goog-credential)=([^&\s#"'<>`]+)/dgi,
    groups: [1],
    validate: (value) => plausibleAssignedSecret(decodeURIComponentSafe(value)),
  },
  {
    // Zapier-style catch hooks: the short key after the account id IS the secret
    // (`/hooks/catch/<id>/<key>/`), too short for the randomness test of the generic rule.
    kind: 'webhook_url',
    hint: /hooks\/catch\//i,
    pattern: new RegExp(
      String.raw`\bhttps?://[^\s/"'<>\`]+/hooks/catch/\d+/[A-Za-z0-9]{4,}/?(?:[?#]${URL_CHARS}*)?`,
      'gi',
    ),
  },
  {
    // ntfy: whoever knows the topic can read and post to it, so the topic is the secret.
    kind: 'ntfy_topic',
    hint: /ntfy\./i,
    pattern: /\b(?:https?:\/\/)?ntfy\.[A-Za-z0-9.-]+\/([A-Za-z0-9_-]{1,64})(?![A-Za-z0-9_-])/dgi,
    groups: [1],
    validate: (topic) => !NTFY_NON_TOPICS.has(topic.toLowerCase()),
  },
  {
    kind: 'webhook_url',
    hint: /hook|trigger/i,
    pattern: new RegExp(
      String.raw`\bhttps?://[^\s/"'<>\`]+/${URL_CHARS}*?\b(?:webhooks?|hooks?|trigger)/${URL_CHARS}+`,
      'gi',
    ),
    validate: (url) => {
      const tail = url.slice(url.search(/\/(?:webhooks?|hooks?|trigger)\//i) + 1);
      return tail.split(/[/?&=#]/).some((seg) => looksRandom(seg, { minLength: 16, allowHex: true }));
    },
  },
  {
    kind: 'secret_assignment',
    hint: /pass|secret|token|key|credential|webhook|dsn/i,
    pattern: new RegExp(
      String.raw`(?<![A-Za-z0-9_.\-?&#/])(["']?)(${SECRET_NAME})\1${INLINE_SPACE}[:=]${INLINE_SPACE}(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"',;}{)\]]+))`,
      'dgi',
    ),
    groups: [3, 4, 5],
    validate: (value) => plausibleAssignedSecret(value) && !value.startsWith('[REDACTED'),
  },
  {
    // Upper-case env names ending in _KEY (`STRIPE_KEY=…`); lower-case `sort_key: x` is schema talk.
    kind: 'secret_assignment',
    hint: /_KEY/,
    pattern: /(?<![A-Za-z0-9_])(?![A-Z0-9_]*PUBLIC)[A-Z][A-Z0-9_]*_KEY[^\S\r\n]*=[^\S\r\n]*(["']?)([^\s"']+)\1/dg,
    groups: [2],
    validate: (value) => plausibleAssignedSecret(value) && !value.startsWith('[REDACTED'),
  },
  {
    kind: 'high_entropy_secret',
    hint: /secret|token|passw|key|credential|auth|bearer|sig/i,
    pattern:
      /(?<![A-Za-z])(?:secret|token|password|passwd|passphrase|api[ _-]?key|apikey|access[ _-]?key|private[ _-]?key|signing[ _-]?key|key|credentials?|auth|bearer|signature|sig)s?(?![A-Za-z])[^\n\r]{0,40}?(?<![A-Za-z0-9+/_=-])([A-Za-z0-9+/_-]{20,}={0,2})(?![A-Za-z0-9+/_=-])/dgi,
    groups: [1],
    validate: (candidate, match, text) => {
      const start = match.indices?.[1]?.[0] ?? match.index;
      return looksRandom(candidate, { minLength: 20, allowHex: !digestContextBefore(text, start) });
    },
  },
  {
    // Last: a more specific rule names the kind first. Secrets said in prose: "the password is hunter2", "my API key is: Ab12…", "PIN was 4821".
    kind: 'prose_secret',
    hint: /pass|secret|key|token|pin\b|code/i,
    pattern:
      /\b(?:password|passphrase|passcode|passwd|pin|secret|api[ _-]?key|access[ _-]?key|token|wifi code|door code)(?:[ ]+(?:for|of|to)[ ]+[\w.@-]+)?[ ]+(?:is|was|=|:)[ ]*:?[ ]*["'“‘]?([^\s"'”’,;]{4,})/dgi,
    groups: [1],
    validate: (value) => plausibleProseSecret(value),
  },
];

/** ntfy.sh paths that are pages of the site, not topics. */
const NTFY_NON_TOPICS = new Set(['docs', 'app', 'static', 'v1', 'account', 'login', 'signup', 'pricing', 'subscribe']);

/** Words that follow "the password is …" in prose without being one. */
const PROSE_NON_SECRETS = new Set(
  'required incorrect correct wrong invalid valid expired missing empty unset stored hidden saved changed reset needed optional protected encrypted rotated revoked ready same different weak strong long short configured provided sent shown masked redacted unknown still also being generated used written printed logged displayed visible secret there here what where located case-sensitive sensitive mandatory set not the your my our their below above attached included'.split(
    ' ',
  ),
);

function plausibleProseSecret(value: string): boolean {
  const v = value.replace(/[.!?)]+$/, '');
  if (v.length < 4 || isPlaceholder(v) || v.startsWith('[REDACTED') || PROSE_NON_SECRETS.has(v.toLowerCase()))
    return false;
  if (looksLikePath(v) || /^https?:/i.test(v)) return false;
  // A plain lower-case word is a secret only when long enough to be a chosen passphrase word.
  if (/^[a-z]+$/.test(v)) return v.length >= 8;
  return true;
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
