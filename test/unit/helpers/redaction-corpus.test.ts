// The redaction corpus: every kind of secret embedded in prose, JSON, logs, URLs, env files and
// markdown (must come out as exactly `before + [REDACTED:kind] + after`), and ordinary technical
// text that must come out unchanged. Secrets are generated at run time (see fake-secrets.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { redact, redactText } from '../../../main/core/tools/helpers/index.ts';
import { FakeSecrets, HEX } from './fake-secrets.ts';

interface PositiveCase {
  name: string;
  kind: string;
  before: string;
  secret: string;
  after: string;
}

const f = new FakeSecrets(20240607);
const jsonLine = (key: string): [string, string] => [`{"level":30,"msg":"config","${key}":"`, `","pid":4242}`];

function positives(): PositiveCase[] {
  const cases: PositiveCase[] = [];
  const add = (name: string, kind: string, before: string, secret: string, after: string) =>
    cases.push({ name, kind, before, secret, after });

  // Discord
  const bot = f.discordBotToken();
  add('discord bot token in prose', 'discord_bot_token', 'the bot token is ', bot, ', please rotate it');
  add(
    'discord bot token in env line',
    'discord_bot_token',
    'DISCORD_BOT_TOKEN=',
    f.discordBotToken(),
    '\nGEMINI_MODEL=gemini-live',
  );
  add('discord bot token in Authorization: Bot', 'discord_bot_token', 'Authorization: Bot ', f.discordBotToken(), '');
  add('discord bot token in JSON', 'discord_bot_token', ...wrap(jsonLine('value'), f.discordBotToken()));
  add('discord webhook (discord.com)', 'discord_webhook', 'posting to ', f.discordWebhook(), ' now');
  add(
    'discord webhook (discordapp.com, v10)',
    'discord_webhook',
    'url=',
    f.discordWebhook('discordapp.com', '/v10'),
    ' status=204',
  );
  add('discord webhook (ptb)', 'discord_webhook', '[', f.discordWebhook('ptb.discord.com'), '](link)');
  add(
    'discord webhook (canary) with query',
    'discord_webhook',
    'POST ',
    f.discordWebhook('canary.discord.com', '/v9') + '?wait=true',
    ' failed: 429',
  );
  add('discord webhook in JSON', 'discord_webhook', '{"webhook_url": "', f.discordWebhook(), '"}');
  // Slack / Teams / generic webhooks
  add('slack webhook in prose', 'slack_webhook', 'Slack hook: ', f.slackWebhook(), ' (ops channel)');
  add('slack webhook in YAML', 'slack_webhook', 'alerts:\n  slack: ', f.slackWebhook(), '\n  level: warn');
  add('teams webhook', 'teams_webhook', 'Teams connector ', f.teamsWebhook(), ' was added');
  add('power automate webhook', 'teams_webhook', 'flow url: ', f.powerAutomateWebhook(), '');
  add(
    'generic webhook with secret path',
    'webhook_url',
    'curl -X POST ',
    `https://hooks.example.test/webhooks/${f.opaque(32)}`,
    ' -d @body.json',
  );
  add(
    'zapier-like catch hook',
    'webhook_url',
    'zap: ',
    `https://hooks.zapier.test/hooks/catch/${f.digits(7)}/${f.opaque(20)}/`,
    '',
  );
  add(
    'zapier catch hook with its real short key',
    'webhook_url',
    'POST to ',
    `https://hooks.zapier.com/hooks/catch/${f.digits(7)}/${f.opaque(7).toLowerCase()}/`,
    ' on every build',
  );
  add('ntfy topic', 'ntfy_topic', 'curl -d "done" https://ntfy.sh/', `lvb-${f.opaque(10)}`, '');
  add('self-hosted ntfy topic', 'ntfy_topic', 'notify ntfy.example.test/', `alerts_${f.opaque(8)}`, ' when it fails');
  // Secrets said in prose
  add('password in prose', 'prose_secret', 'the password is ', `Tr${f.opaque(8)}7`, ', do not share it');
  add('short api key in prose', 'prose_secret', 'My API key is: ', `Kq${f.digits(6)}`, '');
  add('pin in prose', 'prose_secret', 'the door PIN was ', f.digits(6), ' last week');
  add(
    'ifttt-like trigger key',
    'webhook_url',
    'ifttt ',
    `https://maker.ifttt.test/trigger/door_open/with/key/${f.opaque(22)}`,
    ' fired',
  );
  // JWTs
  add('jwt in prose', 'jwt', 'session jwt ', f.jwt(), ' expired at noon');
  add('jwt in JSON', 'jwt', '{"id_token":"', f.jwt(), '","expires_in":3600}');
  add(
    'jwt in URL fragment',
    'jwt',
    'https://app.example.test/cb#state=xyz&access_token=',
    f.jwt(),
    '&token_type=bearer',
  );
  // Authorization
  add(
    'bearer header in curl',
    'bearer_token',
    'curl -H "Authorization: Bearer ',
    f.opaque(40),
    '" https://api.example.test/v1',
  );
  add('bearer JWT header', 'jwt', 'Authorization: Bearer ', f.jwt(), '');
  add('basic auth header', 'basic_auth', 'authorization: Basic ', f.basicCredentials(), '\r\nhost: example.test');
  add('authorization in JSON headers', 'bearer_token', '{"headers":{"Authorization":"Bearer ', f.opaque(36), '"}}');
  add('bare bearer in log', 'bearer_token', 'retrying with bearer ', f.opaque(32), ' after 401');
  add('github token header', 'github_token', 'Authorization: token ', f.githubToken(), '');
  // URL credentials and query params
  add(
    'postgres URL password',
    'url_credentials',
    'DATABASE_URL=postgres://app:',
    f.opaque(16),
    '@db.internal:5432/app',
  );
  add(
    'https URL password',
    'gitlab_token',
    'git clone https://oauth2:',
    f.gitlabToken(),
    '@gitlab.example.test/group/repo.git',
  );
  add('redis URL password', 'url_credentials', 'connecting to redis://default:', f.opaque(20), '@127.0.0.1:6379/0');
  add('token query param', 'secret_param', 'GET /v1/stream?token=', f.opaque(24), '&format=json 200');
  add('api_key query param', 'secret_param', 'https://api.example.test/data?city=Oslo&api_key=', f.opaque(32), '');
  add(
    'key query param (gemini websocket)',
    'google_api_key',
    'wss://generativelanguage.example.test/ws/Live?key=',
    f.googleApiKey(),
    '',
  );
  add('key query param opaque', 'secret_param', 'https://maps.example.test/js?key=', f.opaque(30), '&callback=init');
  add('password query param', 'secret_param', '/login?user=bob&password=', `Hunter${f.digits(6)}`, '&next=%2F');
  add('secret query param in log', 'secret_param', 'GET /oauth/cb?code=ok&secret=', f.opaque(28), ' HTTP/1.1');
  add(
    'signature query param',
    'secret_param',
    'https://bucket.example.test/obj?X-Amz-Expires=900&X-Amz-Signature=',
    f.chars(64, HEX),
    '',
  );
  // env lines and assignments
  add('env GEMINI_API_KEY opaque', 'secret_assignment', 'GEMINI_API_KEY=', f.opaque(30), '\n');
  add(
    'env export DB_PASSWORD',
    'secret_assignment',
    'export DB_PASSWORD=',
    `pw-${f.opaque(14)}`,
    '\nexport DB_HOST=db',
  );
  add('env quoted CLIENT_SECRET', 'secret_assignment', 'CLIENT_SECRET="', f.opaque(26), '"');
  add('env STRIPE_KEY', 'secret_assignment', 'STRIPE_KEY=', f.opaque(24), '');
  add('yaml password', 'secret_assignment', 'db:\n  user: app\n  password: ', `Zq${f.opaque(12)}!`, '\n  host: db');
  add('json api_key', 'secret_assignment', '{"api_key": "', f.opaque(32), '", "region": "eu"}');
  add('npmrc authToken', 'npm_token', '//registry.npmjs.org/:_authToken=', f.npmToken(), '');
  add('log line secret=', 'secret_assignment', 'level=info msg="loaded" webhook_secret=', f.opaque(24), ' took=3ms');
  // provider keys
  add('google api key in prose', 'google_api_key', 'use key ', f.googleApiKey(), ' for the demo');
  add('google api key in JSON', 'google_api_key', '{"apiKey":"', f.googleApiKey(), '"}');
  add('openai key', 'openai_api_key', 'OPENAI key: ', f.openAiKey(), '');
  add('openai project key in log', 'openai_api_key', 'error: invalid key ', f.openAiProjectKey(), ' (401)');
  add('anthropic key', 'anthropic_api_key', 'ANTHROPIC_API_KEY=', f.anthropicKey(), '');
  add('github classic pat', 'github_token', 'pushed with ', f.githubToken('ghp'), ' yesterday');
  add('github oauth token', 'github_token', 'gh auth token → ', f.githubToken('gho'), '');
  add(
    'github app token in URL',
    'github_token',
    'https://x-access-token:',
    f.githubToken('ghs'),
    '@github.com/org/repo.git',
  );
  add('github fine-grained pat', 'github_token', 'GH_TOKEN=', f.githubFineGrained(), '');
  add('gitlab pat', 'gitlab_token', 'gitlab token ', f.gitlabToken(), ' expires friday');
  add('slack bot token', 'slack_token', 'SLACK_BOT_TOKEN=', f.slackBotToken(), '');
  add('slack token in JSON', 'slack_token', '{"token":"', f.slackBotToken(), '"}');
  add('stripe secret key', 'stripe_key', 'stripe.setKey("', f.stripeSecret(), '")');
  add('stripe restricted key', 'stripe_key', 'restricted: ', f.stripeRestricted(), '');
  add('aws access key id', 'aws_access_key_id', 'aws_access_key_id = ', f.awsAccessKeyId(), '\n');
  add('aws access key id in prose', 'aws_access_key_id', 'the key id ', f.awsAccessKeyId(), ' belongs to ci');
  add('aws secret access key (ini)', 'aws_secret_access_key', 'aws_secret_access_key = ', f.awsSecretKey(), '\n');
  add('aws secret access key (JSON)', 'aws_secret_access_key', '{"SecretAccessKey": "', f.awsSecretKey(), '"}');
  add('telegram bot token', 'telegram_bot_token', 'telegram: ', f.telegramToken(), '');
  add('telegram token in URL', 'telegram_bot_token', 'https://api.telegram.org/bot', f.telegramToken(), '/sendMessage');
  add('npm token', 'npm_token', 'NPM token ', f.npmToken(), ' (publish)');
  // PEM blocks
  add('pem rsa key', 'pem_private_key', 'key file:\n', f.pemPrivateKey('RSA'), '\nend of file');
  add('pem openssh key', 'pem_private_key', '', f.pemPrivateKey('OPENSSH'), '');
  add('pem pkcs8 key in markdown', 'pem_private_key', '```\n', f.pemPrivateKey(''), '\n```');
  // high entropy near a secret-ish word
  add('signing secret in prose', 'high_entropy_secret', 'the signing secret is ', f.opaque(32), ', keep it safe');
  add('api key said aloud', 'high_entropy_secret', 'my API key is ', f.opaque(40), ' okay');
  add('hex token near word', 'high_entropy_secret', 'token for the bot was ', f.chars(64, HEX), ' yesterday');
  return cases;
}

function wrap(parts: [string, string], secret: string): [string, string, string] {
  return [parts[0], secret, parts[1]];
}

function negatives(): string[] {
  const n = new FakeSecrets(7);
  const commit = n.chars(40, HEX);
  return [
    'Deploy v1.2.3 to api.example.com and cdn.example.co.uk',
    'upgrade from 10.0.0-beta.1 to 10.0.0 (see CHANGELOG.md)',
    `user ${n.snowflake()} joined channel <#${n.snowflake()}> in guild ${n.snowflake()}`,
    `request id ${n.uuid()} took 23 ms`,
    `idempotency key ${n.uuid()}`,
    `fixed in commit ${commit}`,
    `the API key rotation landed in commit ${commit}`,
    `git checkout ${commit.slice(0, 7)} && npm test`,
    'image sha256:' + n.chars(64, HEX),
    'open /usr/local/lib/node_modules/live-voice-bridge/main/cli.ts',
    'the api key is stored in /home/user/.config/lvb/credentials.json',
    'C:\\Users\\me\\AppData\\Roaming\\live-voice-bridge\\config.json',
    'Remember to rotate the bot token tomorrow; the secret manager has it.',
    'max_tokens: 4096, temperature: 0.7, top_p: 0.95',
    'token_count=512 prompt_tokens=300',
    'const apiKey = process.env.GEMINI_API_KEY;',
    'password: <your password here>',
    'DISCORD_BOT_TOKEN=${DISCORD_BOT_TOKEN}',
    'TOKEN_LIMIT=4096',
    'Authorization header is missing or malformed',
    'https://example.com/search?q=voice+bridge&page=2&sort=desc',
    'https://docs.github.com/en/webhooks/about-webhooks',
    'https://github.com/org/repo/settings/hooks/412345678',
    'npm install @discordjs/voice@0.19.2 discord.js@14.28.1',
    'FROM node:22-alpine AS build',
    'listening on 127.0.0.1:18943 (pid 4242)',
    'mail bob@example.com or ssh git@github.com:org/repo.git',
    'ssh://git@host.example.test:22/srv/repo.git',
    'scikit-learn and sk-learn are different names',
    '.btn { color: #1e90ff; background: #fafafa; }',
    '{"token_type":"bearer","expires_in":3600,"scope":"read"}',
    'Bearer tokens are described in RFC 6750 section 2.1',
    'eyJhb is how most JWTs start, e.g. header.payload.signature',
    'a.b.c and x.y.z are not tokens; neither is os.path.join',
    'the key insight is that barge-in must cancel, not flush',
    'secret_name: app-config\nsort_key: created_at',
    'the token refreshAccessTokenIfExpired handles renewals',
    'at 2024-06-07T12:30:45.123Z the call ended (12:30:45)',
    'ping 192.168.1.10 and fe80::1ff:fe23:4567:890a',
    'see https://discord.com/developers/docs/resources/webhook#execute-webhook',
    'the webhook returned 204 No Content',
    'const keyboardLayout = "us"; let monkey = "bananas";',
    'AKIA is the prefix of AWS access key ids',
    'python3 -m venv .venv && source .venv/bin/activate',
    'password reset link expired, ask for a new one',
    'signature verification failed for release v0.3.5',
    'base64 of hello is aGVsbG8= (short, not a key)',
    'Set the Authorization header to "Bearer <token>"',
    'tokens per second: 42.5',
    "npm test -- --grep 'token refresh'",
    'KEYCLOAK_URL=https://sso.example.com/realms/main',
    'GEMINI_MODEL=gemini-2.5-flash-native-audio-preview-09-2025',
    'x-api-key header is required',
    `https://discord.com/channels/${n.snowflake()}/${n.snowflake()}/${n.snowflake()}`,
    `https://discord.com/api/v10/channels/${n.snowflake()}/messages`,
    '{"level":30,"time":1700000000000,"pid":4242,"hostname":"box","msg":"bridge connected"}',
    'apiKey: string; // the Gemini key',
    'const token = await getToken();',
    'api_key = os.environ["API_KEY"]',
    'token: the next_page_token field is opaque',
    'DISCORD_VOICE_LIVE_SIDECAR_TOKEN must be at least 16 characters',
    'secret=true',
    'authorization: required for /notify',
    'Authorization=denied by policy',
    'authorization: pending review by the owner',
    'the password is required',
    'the password is incorrect.',
    'the token is valid until noon',
    'The secret is that latency matters',
    'the key is stored in the vault',
    'see https://ntfy.sh/docs/publish/ for the API',
  ];
}

const stats = { positives: 0, caught: 0, exact: 0, negatives: 0, falsePositives: 0 };

describe('redaction corpus', () => {
  const cases = positives();
  const clean = negatives();

  it('has the promised size', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(clean.length).toBeGreaterThanOrEqual(40);
    const kinds = new Set(cases.map((c) => c.kind));
    for (const kind of [
      'discord_bot_token',
      'discord_webhook',
      'slack_webhook',
      'teams_webhook',
      'webhook_url',
      'jwt',
      'bearer_token',
      'basic_auth',
      'url_credentials',
      'secret_param',
      'secret_assignment',
      'google_api_key',
      'openai_api_key',
      'anthropic_api_key',
      'github_token',
      'gitlab_token',
      'slack_token',
      'stripe_key',
      'aws_access_key_id',
      'aws_secret_access_key',
      'telegram_bot_token',
      'npm_token',
      'pem_private_key',
      'high_entropy_secret',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it.each(cases)('redacts $name', ({ kind, before, secret, after }) => {
    const input = before + secret + after;
    const result = redact(input);
    stats.positives++;
    if (!result.text.includes(secret)) stats.caught++;
    expect(result.text).toBe(`${before}[REDACTED:${kind}]${after}`);
    stats.exact++;
    expect(result.redactions).toEqual([{ kind, start: before.length, end: before.length + secret.length }]);
    expect(redactText(input)).toBe(result.text);
    // Idempotent: a redacted text stays as it is.
    expect(redactText(result.text)).toBe(result.text);
  });

  it.each(clean.map((text) => ({ text })))('leaves ordinary text alone: $text', ({ text }) => {
    stats.negatives++;
    const result = redact(text);
    if (result.text !== text) stats.falsePositives++;
    expect(result.text).toBe(text);
    expect(result.redactions).toEqual([]);
    expect(redactText(text)).toBe(text);
  });

  it('finds every secret when many share one document', () => {
    const doc = cases.map((c) => c.before + c.secret + c.after).join('\n');
    const out = redactText(doc);
    const leaked = cases.filter((c) => out.includes(c.secret)).map((c) => c.name);
    expect(leaked).toEqual([]);
    for (const text of clean) expect(redactText(`${doc}\n${text}\n`)).toContain(text);
  });

  afterAll(() => {
    const recall = stats.positives ? ((100 * stats.caught) / stats.positives).toFixed(1) : 'n/a';
    console.log(
      `[redaction corpus] recall ${stats.caught}/${stats.positives} (${recall}%), exact ${stats.exact}/${stats.positives}, false positives ${stats.falsePositives}/${stats.negatives}`,
    );
  });
});

describe('redact options', () => {
  it('truncates to max_chars without cutting a marker', () => {
    const secret = new FakeSecrets(3).githubToken();
    const input = `abc ${secret} tail text that is long`;
    const full = redact(input).text;
    const markerEnd = full.indexOf(']') + 1;
    const cut = redact(input, { maxChars: markerEnd - 3 });
    expect(cut.truncated).toBe(true);
    expect(cut.text).toBe('abc ');
    const exact = redact(input, { maxChars: markerEnd });
    expect(exact.text).toBe('abc [REDACTED:github_token]');
    expect(redact(input, { maxChars: 10_000 })).toMatchObject({ text: full, truncated: false });
  });

  it('catches a secret that straddles the cut point (redacts before truncating)', () => {
    const key = new FakeSecrets(4).googleApiKey();
    const result = redact(`key ${key}`, { maxChars: 20 });
    expect(result.text).not.toContain(key.slice(0, 12));
    expect(result.redactions[0]!.kind).toBe('google_api_key');
  });

  it('returns the same string object when nothing matches (cheap for the logger)', () => {
    const line = 'sidecar listening on 127.0.0.1:18943';
    expect(redactText(line)).toBe(line);
  });
});
