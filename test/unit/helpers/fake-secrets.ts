// Obviously fake secrets, generated at test time from a seeded PRNG. No literal in this file (or
// in the tests) has the shape of a real credential; every value is assembled from a prefix and
// random characters, and most carry "FAKE" so a human (or a scanner) reading a log knows.

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
export const ALNUM = UPPER + LOWER + DIGITS;
export const B64URL = ALNUM + '-_';
export const HEX = '0123456789abcdef';

export class FakeSecrets {
  #state: number;

  constructor(seed = 0x5eed) {
    this.#state = seed >>> 0;
  }

  /** mulberry32: small, seeded, good enough for test data. */
  #next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  chars(length: number, alphabet = ALNUM): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.#next() * alphabet.length)];
    return out;
  }

  /** Random characters that start with FAKE (when the length allows), e.g. for token bodies. */
  fake(length: number, alphabet = ALNUM): string {
    return length > 8 ? 'FAKE' + this.chars(length - 4, alphabet) : this.chars(length, alphabet);
  }

  digits(length: number): string {
    return String(1 + Math.floor(this.#next() * 9)) + this.chars(length - 1, DIGITS);
  }

  uuid(): string {
    const h = (n: number) => this.chars(n, HEX);
    return `${h(8)}-${h(4)}-4${h(3)}-a${h(3)}-${h(12)}`;
  }

  snowflake(): string {
    return '1' + this.chars(17, DIGITS);
  }

  discordBotToken(): string {
    return `${Buffer.from(this.snowflake()).toString('base64url')}.${this.chars(6, B64URL)}.${this.fake(38, B64URL)}`;
  }

  discordWebhook(host = 'discord.com', version = ''): string {
    return `https://${host}/api${version}/webhooks/${this.snowflake()}/${this.fake(68, B64URL)}`;
  }

  slackWebhook(): string {
    return `https://hooks.slack.com/services/T${this.chars(8, UPPER + DIGITS)}/B${this.chars(10, UPPER + DIGITS)}/${this.fake(24)}`;
  }

  teamsWebhook(): string {
    return `https://contoso.webhook.office.com/webhookb2/${this.uuid()}@${this.uuid()}/IncomingWebhook/${this.chars(32, HEX)}/${this.uuid()}`;
  }

  powerAutomateWebhook(): string {
    return `https://prod-12.westus.logic.azure.com:443/workflows/${this.chars(32, HEX)}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${this.fake(43, B64URL)}`;
  }

  jwt(): string {
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: 'fake-user', name: 'FAKE', iat: 1700000000 })).toString(
      'base64url',
    );
    return `${header}.${payload}.${this.fake(43, B64URL)}`;
  }

  basicCredentials(): string {
    return Buffer.from(`fakeuser:${this.fake(14)}`).toString('base64');
  }

  googleApiKey(): string {
    return 'AIza' + this.fake(35, B64URL);
  }
  openAiKey(): string {
    return 'sk-' + this.fake(48);
  }
  openAiProjectKey(): string {
    return 'sk-proj-' + this.fake(120, B64URL);
  }
  anthropicKey(): string {
    return 'sk-ant-api03-' + this.fake(93, B64URL) + 'AA';
  }
  githubToken(prefix: 'ghp' | 'gho' | 'ghu' | 'ghs' | 'ghr' = 'ghp'): string {
    return `${prefix}_${this.fake(36)}`;
  }
  githubFineGrained(): string {
    return `github_pat_${this.fake(22)}_${this.chars(59)}`;
  }
  gitlabToken(): string {
    return 'glpat-' + this.fake(20, B64URL);
  }
  slackBotToken(): string {
    return `xoxb-${this.digits(12)}-${this.digits(13)}-${this.fake(24)}`;
  }
  stripeSecret(): string {
    return 'sk_' + 'live_' + this.fake(24);
  }
  stripeRestricted(): string {
    return 'rk_' + 'test_' + this.fake(24);
  }
  awsAccessKeyId(): string {
    return 'AKIA' + this.chars(16, UPPER + DIGITS);
  }
  awsSecretKey(): string {
    return this.fake(40, ALNUM + '/+');
  }
  telegramToken(): string {
    return `${this.digits(10)}:AA${this.fake(33, B64URL)}`;
  }
  npmToken(): string {
    return 'npm_' + this.fake(36);
  }
  pemPrivateKey(label = 'RSA'): string {
    const dashes = '-'.repeat(5);
    const body = Array.from({ length: 4 }, () => this.fake(64, ALNUM + '+/')).join('\n');
    const kind = label ? `${label} PRIVATE KEY` : 'PRIVATE KEY';
    return `${dashes}BEGIN ${kind}${dashes}\n${body}\n${dashes}END ${kind}${dashes}`;
  }
  /** A generic high-entropy secret (webhook signing secret, app secret). */
  opaque(length = 32): string {
    return this.fake(length);
  }
}
