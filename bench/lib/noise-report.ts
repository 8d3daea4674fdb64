// node bench/lib/noise-report.ts [--silero] — phantom turns on the noise corpus as JSON (the figures
// in docs/audio.md "Phantom turns" are this output): the gate before its noise checks, the gate as
// the call builds it, the same closing on a stationary sound, and with --silero the gate with Silero confirming onsets (needs the optional
// packages: it prints their "not installed" reason otherwise). About 10 s.
import { PHANTOM_DEFINITION, measurePhantomTurns, phantomSummary } from './noise-phantoms.ts';
import { measurePhantomTurnsWithSilero } from './noise-silero.ts';

const report: Record<string, unknown> = {
  definition: PHANTOM_DEFINITION,
  energyGateBeforeNoiseChecks: phantomSummary(measurePhantomTurns({ maxBurstShare: 1, stationaryAfterMs: 0 })),
  energyGate: phantomSummary(measurePhantomTurns()),
  energyGateClosingOnStationary: phantomSummary(measurePhantomTurns({ closeOnStationary: true })),
};
if (process.argv.includes('--silero')) {
  const silero = await measurePhantomTurnsWithSilero();
  report.energyGateWithSilero = silero.installed ? phantomSummary(silero.result) : { notInstalled: silero.reason };
}
process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);
