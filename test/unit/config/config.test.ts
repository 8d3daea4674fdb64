import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, configTableMarkdown, loadConfig } from '../../../main/core/config/index.ts';
import { createLogger } from '../../../main/core/log/logger.ts';

const OWNER = '123456789012345678';
// Obviously fake, assembled at run time.
const fakeSecret = (label: string) => `fake-${label}-${'x'.repeat(24)}`;

describe('loadConfig', () => {
  it('gives documented defaults', () => {
    const config = loadConfig({ env: { HERMES_HOME: '/tmp/agent-home' } });
    expect(config.sidecar).toEqual({
      host: '127.0.0.1',
      port: 18943,
      allowRemote: false,
      token: undefined,
      tokenFile: '/tmp/agent-home/voice-users/sidecar.token',
    });
    expect(config.paths.voiceUsers).toBe('/tmp/agent-home/voice-users');
    expect(config.gemini.model).toBe('gemini-3.8-live');
    expect(config.gemini.voice).toBe('Kore');
    expect(config.notify.sfxEnabled).toBe(true);
    expect(config.audio.inputChunkMs).toBe(100);
  });

  it('accepts the spec spelling PLATFORM_VOICE_LIVE_ and GOOGLE_API_KEY as aliases', () => {
    const config = loadConfig({
      env: {
        PLATFORM_VOICE_LIVE_SFX_ENABLED: 'false',
        PLATFORM_VOICE_LIVE_PORT: '19000',
        GOOGLE_API_KEY: fakeSecret('g'),
      },
    });
    expect(config.notify.sfxEnabled).toBe(false);
    expect(config.sidecar.port).toBe(19000);
    expect(config.gemini.apiKey).toBe(fakeSecret('g'));
  });

  it('prefers the canonical name over the alias', () => {
    const config = loadConfig({ env: { DISCORD_VOICE_LIVE_PORT: '19001', PLATFORM_VOICE_LIVE_PORT: '19000' } });
    expect(config.sidecar.port).toBe(19001);
  });

  it('defaults allowed speakers to the owner only', () => {
    expect(loadConfig({ env: { DISCORD_VOICE_LIVE_USER_ID: OWNER } }).discord.allowedSpeakers).toEqual([OWNER]);
  });

  it('names the variable in a startup error and lists every problem', () => {
    try {
      loadConfig({
        env: {
          DISCORD_VOICE_LIVE_PORT: 'eighty',
          DISCORD_VOICE_LIVE_USER_ID: 'me',
          DISCORD_VOICE_LIVE_SFX_ENABLED: 'maybe',
        },
      });
      expect.fail('should throw');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toContain('DISCORD_VOICE_LIVE_PORT: must be an integer');
      expect(problems).toContain('DISCORD_VOICE_LIVE_USER_ID: must be a Discord id');
      expect(problems).toContain('DISCORD_VOICE_LIVE_SFX_ENABLED: must be true or false');
    }
  });

  it('refuses a non-loopback host unless a token and the allow flag are both set', () => {
    expect(() => loadConfig({ env: { DISCORD_VOICE_LIVE_HOST: '0.0.0.0' } })).toThrow(/DISCORD_VOICE_LIVE_HOST/);
    expect(() =>
      loadConfig({ env: { DISCORD_VOICE_LIVE_HOST: '0.0.0.0', DISCORD_VOICE_LIVE_ALLOW_REMOTE: 'true' } }),
    ).toThrow(/SIDECAR_TOKEN/);
    const ok = loadConfig({
      env: {
        DISCORD_VOICE_LIVE_HOST: '0.0.0.0',
        DISCORD_VOICE_LIVE_ALLOW_REMOTE: 'true',
        DISCORD_VOICE_LIVE_SIDECAR_TOKEN: fakeSecret('t'),
      },
    });
    expect(ok.sidecar.host).toBe('0.0.0.0');
  });

  it('never echoes a secret value in an error', () => {
    const secretish = `not a url ${fakeSecret('w')}`;
    try {
      loadConfig({ env: { DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY: secretish } });
      expect.fail('should throw');
    } catch (err) {
      expect((err as Error).message).toContain('DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY');
      expect((err as Error).message).not.toContain(fakeSecret('w'));
    }
  });

  it('masks a secret pasted into a non-secret variable, whichever variable it lands in', () => {
    const token = fakeSecret('bot');
    const key = fakeSecret('key');
    const cases: Record<string, string>[] = [
      { DISCORD_BOT_TOKEN: token, DISCORD_VOICE_LIVE_USER_ID: token },
      { DISCORD_BOT_TOKEN: token, DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: `100000000000000001,${token}` },
      { GEMINI_API_KEY: key, DISCORD_VOICE_LIVE_LOG_LEVEL: key },
      { GEMINI_API_KEY: key, DISCORD_VOICE_LIVE_PORT: key },
      // Not configured as a secret anywhere: still not echoed when it is long.
      { DISCORD_VOICE_LIVE_USER_ID: token },
    ];
    for (const env of cases) {
      let message = '';
      try {
        loadConfig({ env });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/invalid configuration/);
      expect(message).not.toContain(token);
      expect(message).not.toContain(key);
      expect(message).not.toContain(token.slice(0, 12));
    }
  });

  it('reads a .env file, with the process environment taking precedence, and settings above both', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lvb-env-'));
    const file = path.join(dir, '.env');
    writeFileSync(
      file,
      'DISCORD_VOICE_LIVE_VOICE=Puck\nGEMINI_MODEL=from-file\n# comment\nDISCORD_VOICE_LIVE_PORT=19002\n',
    );
    const config = loadConfig({ env: { GEMINI_MODEL: 'from-env' }, envFile: file });
    expect(config.gemini.voice).toBe('Puck');
    expect(config.gemini.model).toBe('from-env');
    expect(config.sidecar.port).toBe(19002);
    expect(
      loadConfig({ env: { GEMINI_MODEL: 'from-env' }, envFile: file, settings: { GEMINI_MODEL: 'from-settings' } })
        .gemini.model,
    ).toBe('from-settings');
  });

  it('renders a markdown table of every variable for the README', () => {
    const table = configTableMarkdown();
    expect(table).toContain('| `DISCORD_VOICE_LIVE_PORT` / `PLATFORM_VOICE_LIVE_PORT` | `18943` |');
    expect(table).toContain('`GEMINI_API_KEY` / `GOOGLE_API_KEY`');
  });
});

describe('logger', () => {
  it('scrubs configured secret values from messages, objects and errors', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const token = fakeSecret('bot');
    const logger = createLogger({ secrets: [token], destination: sink });
    logger.info(`connecting with ${token}`);
    logger.warn({ detail: { url: `https://x.invalid/?t=${token}` }, authorization: 'Bearer whatever' }, 'request');
    logger.error({ err: new Error(`login failed for ${token}`) }, 'failed');
    const output = lines.join('');
    expect(lines).toHaveLength(3);
    expect(output).not.toContain(token);
    expect(output).toContain('[REDACTED]');
    expect(output).toContain('"authorization":"[REDACTED]"');
  });
});
