// Start a real core (sidecar on an ephemeral loopback port) in a throwaway agent home.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../main/core/config/index.ts';
import { startCore, type CoreHandle, type CoreOptions } from '../../main/core/core.ts';
import { silentLogger } from '../../main/core/log/logger.ts';

export interface TestCore {
  core: CoreHandle;
  config: Config;
  home: string;
  port: number;
  auth: { authorization: string };
  close(): Promise<void>;
}

export async function startTestCore(
  env: Record<string, string> = {},
  extra: Partial<CoreOptions> = {},
): Promise<TestCore> {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-test-'));
  const config = loadConfig({ env: { HERMES_HOME: home, ...env } });
  config.sidecar.port = 0;
  const core = await startCore({ config, logger: silentLogger(), ...extra });
  const port = Number(new URL(core.sidecarUrl).port);
  return {
    core,
    config,
    home,
    port,
    auth: { authorization: `Bearer ${core.token}` },
    async close() {
      await core.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
