// GET /health from the capabilities' own reports (Lifecycle.healthParts, in start order): each adds
// its fields of the report and its inputs to the verdict; the verdict (status, reasons) comes first.
import type { HealthReport } from '../api-types.ts';
import { healthVerdict, type HealthInputs } from '../health-verdict.ts';
import type { HealthPart } from '../lifecycle.ts';

/** The report's fields in the order /health has always written them (a person reads it with curl). */
const FIELD_ORDER: readonly (keyof HealthReport)[] = [
  'version',
  'uptime_s',
  'pid',
  'node',
  'bridge',
  'connections',
  'discord_bot',
  'live_model',
  'audio',
  'metrics',
  'memory',
  'native',
  'faults',
  'dave',
  'muted',
  'talk',
  'usage',
];

export function assembleHealth(parts: readonly HealthPart[]): HealthReport {
  const report: Partial<HealthReport> = {};
  const inputs: Partial<HealthInputs> = {};
  for (const part of parts) {
    Object.assign(report, part.report);
    Object.assign(inputs, part.verdict);
  }
  // Every capability that reports has started before the sidecar answers a request; the defaults
  // only make a report from a core stopped under it well-formed.
  const verdict = healthVerdict({
    missing: [],
    bridge: { state: 'stopped' },
    connections: { discord: 'disconnected', model: 'disconnected' },
    discordBot: { configured: false, loggedIn: false },
    ...inputs,
  } as HealthInputs);
  const ordered = Object.fromEntries(FIELD_ORDER.filter((key) => key in report).map((key) => [key, report[key]]));
  return { ...verdict, ...ordered, ...report } as HealthReport;
}
