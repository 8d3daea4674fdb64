// DISCORD_VOICE_LIVE_MCP_SERVERS parsing, secret handling and the model-facing naming rules.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../main/core/config/index.ts';
import { createLogger } from '../../../main/core/log/logger.ts';
import { capText, modelToolName, resultText } from '../../../main/core/mcp/client/model-tools.ts';

const headerSecret = ['hdr', 'secret', process.pid.toString(36), 'x'.repeat(12)].join('-');

function load(servers: unknown): ReturnType<typeof loadConfig> {
  return loadConfig({
    env: { DISCORD_VOICE_LIVE_MCP_SERVERS: typeof servers === 'string' ? servers : JSON.stringify(servers) },
  });
}

function configError(servers: unknown): string {
  try {
    load(servers);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('DISCORD_VOICE_LIVE_MCP_SERVERS', () => {
  it('parses stdio and HTTP servers with defaults: policy ask, 30 s timeout', () => {
    const config = load([
      {
        name: 'memory',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory'],
        tools: { read_graph: 'allow' },
      },
      { name: 'remote', url: 'http://127.0.0.1:9000/mcp', headers: { authorization: `Bearer ${headerSecret}` } },
    ]);
    expect(config.mcp.servers).toHaveLength(2);
    expect(config.mcp.servers[0]).toMatchObject({
      name: 'memory',
      default_policy: 'ask',
      timeout_seconds: 30,
      tools: { read_graph: 'allow' },
    });
    expect(config.mcp.servers[1]).toMatchObject({ name: 'remote', url: 'http://127.0.0.1:9000/mcp' });
    expect(load('').mcp.servers).toEqual([]);
    expect(loadConfig({ env: {} }).mcp.servers).toEqual([]);
  });

  it('treats header values as secrets: in the scrub list, never in logs or errors', () => {
    const config = load([
      { name: 'remote', url: 'http://127.0.0.1:9000/mcp', headers: { authorization: `Bearer ${headerSecret}` } },
    ]);
    expect(config.secretValues).toContain(`Bearer ${headerSecret}`);
    const lines: string[] = [];
    const logger = createLogger({
      secrets: config.secretValues,
      destination: new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }),
    });
    logger.warn({ headers: `authorization: Bearer ${headerSecret}` }, 'request failed');
    expect(lines.join('')).not.toContain(headerSecret);

    const bad = configError([
      { name: 'remote', url: 'not a url', headers: { authorization: `Bearer ${headerSecret}` } },
    ]);
    expect(bad).toContain('DISCORD_VOICE_LIVE_MCP_SERVERS');
    expect(bad).not.toContain(headerSecret);
    const badJson = configError(`[{"name":"x","url":"http://a","headers":{"authorization":"${headerSecret}"}`);
    expect(badJson).toContain('not valid JSON');
    expect(badJson).not.toContain(headerSecret);
  });

  it('refuses unclear entries: both command and url, unknown policies, duplicate names, bad names', () => {
    expect(configError([{ name: 'x', command: 'a', url: 'http://127.0.0.1/mcp' }])).toContain('[0]');
    expect(configError([{ name: 'x', command: 'a', tools: { t: 'maybe' } }])).toContain(
      'DISCORD_VOICE_LIVE_MCP_SERVERS',
    );
    expect(
      configError([
        { name: 'x', command: 'a' },
        { name: 'X', command: 'b' },
      ]),
    ).toContain('unique');
    expect(configError([{ name: 'has space', command: 'a' }])).toContain('name');
    expect(configError({ name: 'x', command: 'a' })).toContain('DISCORD_VOICE_LIVE_MCP_SERVERS');
  });
});

describe('model-facing MCP tools', () => {
  it('names tools mcp_<server>_<tool> with only characters every live model accepts, at most 64', () => {
    expect(modelToolName('everything', 'trigger-long-running-operation')).toBe(
      'mcp_everything_trigger_long_running_operation',
    );
    expect(modelToolName('srv', 'a.b/c')).toBe('mcp_srv_a_b_c');
    expect(modelToolName('s', 'x'.repeat(100))).toHaveLength(64);
  });

  it('turns content into text the model reads, and cuts long results', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
      }),
    ).toBe('one\n[image image/png omitted]');
    expect(resultText({ content: [], structuredContent: { n: 3 } })).toBe('{"n":3}');
    const cut = capText('a'.repeat(5000), 4000);
    expect(cut.startsWith('a'.repeat(4000))).toBe(true);
    expect(cut).toContain('(cut: 1000 more characters)');
  });
});
