// Where a secret that is not saved in the app really comes from, in words: the process environment
// (and under which variable), or the file it was read from (a `.env`). Shared by /setup and Settings.
import type { SetupStateResponse } from '../main/core/sidecar-client/wire-types.ts';

type SecretSource = NonNullable<SetupStateResponse['secretSources'][keyof SetupStateResponse['secretSources']]>;

/** "Set by the environment variable DISCORD_BOT_TOKEN." / "Set in /home/me/bridge/.env (DISCORD_BOT_TOKEN)." */
export function secretSourceWords(source: SecretSource | undefined): string {
  if (!source) return 'Set outside the app (environment).';
  return source.kind === 'file'
    ? `Set in ${source.file} (${source.variable}).`
    : `Set by the environment variable ${source.variable}.`;
}
