// Where the running sidecar is, read for the thin client commands without loading the whole
// configuration (config/index.ts pulls in the MCP, pricing and zod modules: most of a CLI call's
// start-up). It reads the same variables from the same table (config/variables.ts: names, aliases,
// defaults) in the same order (environment, then ./.env; an empty value is unset), and refuses what
// loadConfig refuses for these five; test/unit/cli/address.test.ts checks the two agree.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { CONFIG_VARIABLES, type VariableSpec } from '../core/config/variables.ts';
import type { SidecarAddress } from './sidecar-client.ts';
import { CodedError } from '../core/contracts/coded-error.ts';

/** A variable the thin client needs has a value it cannot use (exit 2, like a ConfigError). */
export class AddressError extends CodedError {
  constructor(message: string) {
    super('bad_address', message);
  }
}

/** The variables the thin client reads. */
type AddressVariable =
  | 'DISCORD_VOICE_LIVE_HOST'
  | 'DISCORD_VOICE_LIVE_PORT'
  | 'DISCORD_VOICE_LIVE_SIDECAR_TOKEN'
  | 'DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE'
  | 'HERMES_HOME';

function readEnvFile(file: string): Record<string, string> {
  try {
    return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new AddressError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(homedir(), p.slice(1)) : p;
}

export function readSidecarAddress(env: NodeJS.ProcessEnv, envFile: string): SidecarAddress {
  const sources = [env, readEnvFile(envFile)];
  const specs = new Map((CONFIG_VARIABLES as readonly VariableSpec[]).map((s) => [s.name, s]));
  const value = (name: AddressVariable): string | undefined => {
    const spec = specs.get(name)!;
    for (const source of sources) {
      for (const n of [spec.name, ...(spec.aliases ?? [])]) {
        const v = source[n];
        if (v !== undefined && v.trim() !== '') return v;
      }
    }
    return spec.default;
  };
  const host = value('DISCORD_VOICE_LIVE_HOST')!.trim();
  const portText = value('DISCORD_VOICE_LIVE_PORT')!.trim();
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new AddressError(
      `DISCORD_VOICE_LIVE_PORT: must be an integer from 1 to 65535, got ${JSON.stringify(portText)}`,
    );
  const token = value('DISCORD_VOICE_LIVE_SIDECAR_TOKEN');
  if (token !== undefined && token.length < 16)
    throw new AddressError('DISCORD_VOICE_LIVE_SIDECAR_TOKEN: must be at least 16 characters (value hidden)');
  const agentHome = path.resolve(expandHome(value('HERMES_HOME')!.trim()));
  const tokenFile = value('DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE');
  return {
    sidecar: {
      host,
      port,
      token,
      tokenFile: tokenFile ? path.resolve(expandHome(tokenFile)) : path.join(agentHome, 'voice-users', 'sidecar.token'),
    },
    paths: { voiceUsers: path.join(agentHome, 'voice-users') },
  };
}
