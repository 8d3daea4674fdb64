// `/health.status` from what the process knows: `ok` when everything configured is working,
// `degraded` when it runs but something a user relies on is missing or down (not configured, a
// connection down, the WASM Opus fallback, a native piece missing), `error` when a call failed for
// good. Each non-ok verdict lists its reasons, so "why is it not ok" is answered in one request.
import type { BridgeState, ConnectionState, HealthStatus, NativePieceReport, OpusReport } from './api-types.ts';

export interface HealthInputs {
  /** Variables a call still needs (empty when voice calls are configured). */
  missing: readonly string[];
  bridge: { state: BridgeState; reason?: string };
  connections: { discord: ConnectionState; model: ConnectionState };
  /** A bot is configured; whether it is logged in now. */
  discordBot: { configured: boolean; loggedIn: boolean };
  opus: OpusReport;
  native: { sharp: NativePieceReport; davey: NativePieceReport };
}

export function healthVerdict(inputs: HealthInputs): { status: HealthStatus; reasons: string[] } {
  const errors: string[] = [];
  const degraded: string[] = [];
  const { bridge, connections } = inputs;
  if (bridge.state === 'error') errors.push(`call failed: ${bridge.reason ?? 'unknown reason'}`);
  if (inputs.missing.length) degraded.push(`not configured: voice calls need ${inputs.missing.join(', ')}`);
  if (inputs.discordBot.configured && !inputs.discordBot.loggedIn)
    degraded.push('Discord bot not logged in (retrying)');
  const inCall = bridge.state === 'connected' || bridge.state === 'reconnecting' || bridge.state === 'parked';
  if (inCall) {
    if (connections.discord !== 'connected') degraded.push(`Discord voice connection ${connections.discord}`);
    if (connections.model !== 'connected') degraded.push(`model connection ${connections.model}`);
  }
  if (inputs.opus.impl === 'wasm') degraded.push(`Opus WASM fallback: ${inputs.opus.reason}`);
  if (!inputs.native.sharp.available) degraded.push(`sharp missing: ${inputs.native.sharp.reason}`);
  if (!inputs.native.davey.available) degraded.push(`davey missing: ${inputs.native.davey.reason}`);
  if (errors.length) return { status: 'error', reasons: [...errors, ...degraded] };
  if (degraded.length) return { status: 'degraded', reasons: degraded };
  return { status: 'ok', reasons: [] };
}
