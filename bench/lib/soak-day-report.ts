// The day soak's result file (bench/results/soak-day.json): its schema as read back, the definition
// beside each number, and the table rows the console and README show (scripts/soak-readme.ts).
import { z } from 'zod';
import { AFTER_RESTART_WINDOW_MS } from './soak-day-kill.ts';
import { FLAT_TARGETS, rssByProcess, worstSlope } from './soak-day-measure.ts';

export const SOAK_DAY_DEFINITIONS = {
  minutes: 'length of the call, real time (audio paced as in a real call)',
  faults:
    'the faults injected, counted by the fakes: rotations (goAway then a resume), deadlines (service sessions that met their hard deadline: closed at it with 1011, or, passed with no socket open, parked or in the outage, their next resume refused with 1007), freshSessions (sessions begun after the first), drops, stalls, outages, voiceResets (Discord voice reconnects), membershipChanges and silentRekeys (DAVE), overlapsRefused (a second socket of one session refused)',
  lostWords:
    'each word not heard, with the outage phase it fell in, the faults of the 30 s before it, the call state at /health in the samples either side (5 s apart) and, with a kill -9, when it was said relative to the kill (killPhase)',
  wordsLostHeldAtKill:
    "lost words the killed core still held at the kill -9: said before the kill, after the last word the model heard before it, never heard (speech held while the model is unreachable, or handed over one per model turn after, lives in the core's memory and ends with the process); null without a kill",
  killRestart:
    "the kill -9 of the core mid-call (--kill-at-min) and its restart on the same home, port and token, the call joined again by POST /join: upAfterS = the restarted core's sidecar answered, callBack = a model socket again (backAfterS after the kill), reminders due from the kill until then delivered and duplicated, the killed call's notes (GET /notes?call=) all still there after the restart",
  remindersDueInKillGap:
    'accepted reminders that fell due while the core was down: from the kill -9 until the restarted core answered (killRestart.upAfterS). Right before the kill the soak schedules one per mode due 0.5-2 s after it and restarts the core only once they are due (bench/lib/soak-day-kill.ts); …Delivered / …Lost / …Duplicated counted at the receivers as remindersLost and remindersDuplicated are (a voice one, no call yet, counts where it was sent instead); null without a kill',
  remindersDueAfterRestart: `accepted reminders that fell due in the ${AFTER_RESTART_WINDOW_MS / 1000} s after the restarted core answered (the call rejoining, then back): one per mode is scheduled right before the kill, due 10-20 s after it; …Delivered / …Lost / …Duplicated as for remindersDueInKillGap`,
  killGapReminders:
    'the same per mode (inKillGap, afterRestart), and each reminder scheduled around the kill: when it fell due (while the core was down, core back and the call rejoining, call back), seconds after the kill, deliveries at its receiver, sent instead of voice',
  wordsSent: 'numbered phrases the fake owner spoke (each a pitch-coded word, bench/lib/soak-call.ts)',
  wordsHeard:
    'phrases the fake model received and transcribed as the phrase said (matched in order over the run); wordsLost = wordsSent − wordsHeard',
  guestWords:
    "per guest (guest, visitor), their own pitch-coded phrases (codes above the owner's, bench/lib/soak-day-guests.ts) said in about half the owner's pauses, a third of them overlapping the start of the owner's next phrase: sent = said whole while in the channel (cutByLeaving: begun, then cut short by the speaker leaving, whose client then stops sending: not in sent, as the fake Discord sends nothing after a leave since 2026-12-04), heard = a model turn at or after it, before that guest's next phrase of the same code, whose transcription (read 60 ms window by window) holds the code; turns of guests alone are not counted in the owner's words or replies",
  guestWordsLostAt:
    "each guest phrase no model turn heard (guestWords' rule): who, its code, when it was said (s from the start), unopenableFrames (its frames the fake Discord sealed with a key the bot lacked: a silent re-key, speech no bridge can hear until it is re-keyed, ~0.8 s in short runs 17-18) and the model turns from 5 s before to 15 s after it, each with the codes it held, for tracing",
  guestPhrases:
    'what guestWords is taken from, to be read again: each guest phrase said (code, s from the start, unopenableFrames) and each model turn (s from the start, the codes its transcription held)',
  repliesWhole: 'phrases answered exactly once with audio the fake Discord received',
  repliesDoubled: 'phrases the model answered more than once with audio',
  repliesStale:
    "replies that answered nothing said: no utterance of their phrase among the last ones said before the model got the turn (a leftover of a cut or replaced reply, or a misheard phrase); counted in the window they played in. Until 2026-12-02 this counted every reply heard in a later phrase's window, so the late answers below read as stale",
  repliesLate:
    'replies that answered an utterance after the speaker had begun a later one: speech held while the model was unreachable (the 60 s outage) and handed over once it was back, answered in order after it (by design: unheard speech is kept until answered, docs/architecture.md "Unheard speech"); repliesLateMaxS: the latest of them, from the utterance\'s start to the model getting it',
  remindersDue:
    'reminders the core accepted (POST /schedule 201), 15-45 s ahead, modes cycling voice, dm, channel, webhook; with a kill -9, also the 8 scheduled around it (remindersDueInKillGap)',
  remindersLost:
    'accepted reminders no receiver got: DM/channel = messages at the fake Discord REST, webhook = acted on by the receiver (2xx), voice = its text reached the fake model, or (the model unreachable) it arrived by DM, channel or webhook instead, as its outcome says (remindersByMode.voice.sentInstead)',
  remindersDuplicated:
    'deliveries beyond the first at the receiver (voice: not told, a fresh seeded session repeats the call so far)',
  webhookReceiver:
    'the receiver answers 500 to every 5th request (the 2nd, 7th, …) and 429 (Retry-After 1) to every 7th (the 4th, 11th, …), and honours Idempotency-Key (repeatsDropped: repeats of a key it acted on)',
  rssGrowthMbPerHour:
    "least-squares slope of the core RSS (/proc, every 5 s) after the first window, MB per hour; flat.rss.lastHalfMbPerHour: the same over the second half of each core process's samples (the worse), beside it; flat.rss.byProcess: both per process",
  fdsFirstQuiet:
    "open file descriptors the core holds of its own (/proc/<pid>/fd, less the soak's clients' connections into the sidecar and the model socket, both read from the core's own fds: flat.fds.sidecarClientsAtQuietPoints, flat.fds.modelSocketsAtQuietPoints) at the first quiet point (read before and after its /health, again, up to five times a second apart, until the two readings agree: one instant for fds and active resources): the end of a long quiet stretch, nobody speaking; fdsLastQuiet at the last. The /events stream, the MCP agent's session and a CLI still waiting open and close when the client says, not the core; the model socket is there when a reminder or a /say kept the model from parking in that stretch: counted beside, not in (a leaked model socket shows in modelSocketsOpenMax)",
  activeResources:
    "process.getActiveResourcesInfo() in the core, summed over kinds (/health diagnostics.active_resources), less the soak's clients' connections into the sidecar and the model socket, at the quiet points",
  cpuPercent: 'core CPU (utime+stime from /proc) over the window, % of one core',
  healthRoundTripP99Ms:
    "p99 of the /health round trip from the soak (every 5 s): an upper bound on the core's event-loop delay, measured without a timer in the core",
  modelSocketsOpenMax: 'model sockets open at the fake at a sample (1 expected; 2 only inside a handover)',
  childProcessesMax: 'processes whose parent is the core (none expected)',
  flat: `after the first window RSS slope ≤ ${FLAT_TARGETS.rssGrowthMbPerHour} MB/h; fds and active resources the same at every quiet point; CPU per window within ${FLAT_TARGETS.cpuWithinPercentOfFirst} % of the first. Beside it (flat.cpu.steady, not part of the verdict) the same check over the windows in which no core process started (the first window, and the one the kill -9's restart fell in: a start loads modules and warms the JIT), against the first of them. After a kill -9 the restarted core is another process: its quiet points are compared with its own, its RSS slope is taken after its own first window (the worse slope is the figure), and a window's CPU adds what each process used`,
  quietPointSockets:
    "the core's TCP sockets at each quiet point, as local port → remote port (state), from /proc/<pid>/fd and /proc/<pid>/net/tcp: which socket differs when the fd counts do",
  quietPointOtherFds:
    "the core's other fds at each quiet point (files, pipes, event fds, unix sockets), by their /proc/<pid>/fd target with inode numbers dropped: which one differs when the fd counts do",
  agents:
    'the dashboard /events stream (events, reconnects), /say and /ask from the compiled CLI (cliSays: spoken, exit 0; cliSaysCut: cut by someone speaking over it, exit 4, partly heard: barge-in, by design; cliSaysFailed: any other exit; cliExits: each), mcp: an MCP client (SDK v2, Streamable HTTP at /mcp) listing the tools and calling call_status or read_notes every ~20 s (sessions, calls, failures: the kill -9 fails some), frames: a 320×180 PNG to POST /frame every ~15 s outside the quiet stretches (a frame wakes a parked call)',
  windows:
    "one row per window (10 min by default) with the same figures; memoryMbLast: the window's last split of the core's RSS from /proc/<pid>/smaps, read once a minute (bench/lib/smaps-split.ts): mallocMainMb glibc's main arena, mallocThreadsMb glibc's per-thread heaps, anonOtherMb the other anonymous memory (V8's heap among it), fileMb file-backed pages; coreStarted: a core process began in the window (the first; the kill -9's restart)",
  machine: 'shared machine: other work ran at the same time (see loadAverage1m)',
};

const check = z.object({ pass: z.boolean() }).passthrough();
export const soakDayResultSchema = z.object({
  minutes: z.number(),
  windowMinutes: z.number(),
  wordsSent: z.number(),
  wordsHeard: z.number(),
  wordsLostHeldAtKill: z.number().nullish(),
  repliesDoubled: z.number(),
  // Absent in results from before the guests spoke (issue #55 item 1).
  // cutByLeaving since 2026-12-04 (before, the rest of such a phrase was sent, and counted as said).
  guestWords: z
    .record(z.string(), z.object({ sent: z.number(), heard: z.number(), cutByLeaving: z.number().optional() }))
    .optional(),
  // Absent in results from before the MCP agent and frames ran beside the call (2026-12-02).
  agents: z
    .object({
      cliSays: z.number(),
      // Since 2026-12-03 evening (earlier files counted a cut as failed).
      cliSaysCut: z.number().optional(),
      cliSaysFailed: z.number(),
      mcp: z.object({ toolCalls: z.number(), toolCallsFailed: z.number() }).nullish(),
      frames: z.object({ pushed: z.number(), refused: z.number() }).nullish(),
    })
    .optional(),
  repliesStale: z.number(),
  // Absent in results from before late answers were counted apart (2026-12-02).
  repliesLate: z.number().nullish(),
  repliesLateMaxS: z.number().nullish(),
  remindersDue: z.number(),
  remindersLost: z.number(),
  remindersDuplicated: z.number(),
  // Absent in results from before the kill gap's reminders (runs 1-6); null in a run without a kill.
  remindersDueInKillGap: z.number().nullish(),
  remindersDueInKillGapLost: z.number().nullish(),
  remindersDueInKillGapDuplicated: z.number().nullish(),
  remindersDueAfterRestart: z.number().nullish(),
  remindersDueAfterRestartLost: z.number().nullish(),
  remindersDueAfterRestartDuplicated: z.number().nullish(),
  rssGrowthMbPerHour: z.number().nullable(),
  fdsFirstQuiet: z.number().nullable(),
  fdsLastQuiet: z.number().nullable(),
  activeResourcesFirstQuiet: z.number().nullable(),
  activeResourcesLastQuiet: z.number().nullable(),
  quietPoints: z.number(),
  modelSocketsOpenMax: z.number(),
  childProcessesMax: z.number(),
  flat: z.object({
    pass: z.boolean(),
    // lastHalfMbPerHour: since 2026-12-04; earlier result files have no such figure.
    rss: check.extend({ lastHalfMbPerHour: z.number().nullish() }),
    fds: check,
    activeResources: check,
    cpu: check.extend({
      firstWindowPercent: z.number().nullable(),
      windowsPercent: z.array(z.number()),
      // Since 2026-12-03 evening; earlier result files have no such figure.
      steady: z
        .object({ pass: z.boolean(), firstPercent: z.number().nullable(), windowsPercent: z.array(z.number()) })
        .optional(),
    }),
  }),
  faults: z
    .object({
      rotations: z.number(),
      deadlines: z.number(),
      drops: z.number(),
      stalls: z.number(),
      outages: z.number(),
      voiceResets: z.number(),
      membershipChanges: z.number(),
      silentRekeys: z.number(),
    })
    .passthrough(),
  windows: z.array(
    z
      .object({
        fromMin: z.number(),
        toMin: z.number(),
        wordsSent: z.number(),
        wordsHeard: z.number(),
        repliesDoubled: z.number(),
        remindersDue: z.number(),
        remindersDelivered: z.number(),
        rssMb: z.object({ last: z.number() }),
        heapMbMax: z.number().nullable(),
        fdsMax: z.number(),
        activeResourcesMax: z.number().nullable(),
        cpuPercent: z.number(),
        healthRoundTripP99Ms: z.number().nullable(),
        modelSocketsOpenMax: z.number(),
      })
      .passthrough(),
  ),
  machine: z.object({ cores: z.number(), loadAverage1m: z.number(), loadAverage1mAtEnd: z.number() }).passthrough(),
  // The 5 s samples: the report derives from them what an older result file has no field for.
  samples: z.array(z.object({ t: z.number(), pid: z.number().optional(), rssMb: z.number() }).passthrough()).optional(),
});
export type SoakDayResult = z.infer<typeof soakDayResultSchema>;

const mark = (ok: boolean): string => (ok ? ' ✓' : ' ✗');

/** "first %; lowest – highest %" with the check's mark. */
const cpuCell = (first: number | null, windows: readonly number[], pass: boolean): string =>
  `${first ?? '—'} %; ${windows.length ? `${Math.min(...windows)} – ${Math.max(...windows)}` : '—'} %${mark(pass)}`;

/** The kill -9's reminders, when the run had one. */
type Row = [metric: string, measured: string, target: string];

function killGapRows(r: SoakDayResult): Row[] {
  const row = (metric: string, due?: number | null, lost?: number | null, dup?: number | null) =>
    due === null || due === undefined
      ? []
      : [
          [
            metric,
            `${due} / ${lost ?? '—'} / ${dup ?? '—'}${mark(due > 0 && lost === 0 && dup === 0)}`,
            'due ≥ 1, lost 0, duplicated 0',
          ] as [string, string, string],
        ];
  return [
    ...row(
      'reminders due while the core was down (kill -9) / lost / duplicated',
      r.remindersDueInKillGap,
      r.remindersDueInKillGapLost,
      r.remindersDueInKillGapDuplicated,
    ),
    ...row(
      'reminders due just after the restart / lost / duplicated',
      r.remindersDueAfterRestart,
      r.remindersDueAfterRestartLost,
      r.remindersDueAfterRestartDuplicated,
    ),
  ];
}

export function soakDayRows(r: SoakDayResult): Row[] {
  const lost = r.wordsSent - r.wordsHeard;
  const f = r.faults;
  // A result file from before the field (2026-12-04) has the samples it is taken from.
  const lastHalf =
    r.flat.rss.lastHalfMbPerHour ??
    (r.samples ? worstSlope(rssByProcess(r.samples, r.windowMinutes * 60_000).map((p) => p.lastHalf)) : undefined);
  return [
    ['length (real time)', `${r.minutes} min (${r.windows.length} windows of ${r.windowMinutes} min)`, ''],
    [
      'rotations / deadlines / drops / stalls / outages / voice resets',
      `${f.rotations} / ${f.deadlines} / ${f.drops} / ${f.stalls} / ${f.outages} / ${f.voiceResets}`,
      '',
    ],
    ['DAVE membership changes / silent re-keys', `${f.membershipChanges} / ${f.silentRekeys}`, ''],
    [
      'words spoken / heard by the model (lost)',
      `${r.wordsSent} / ${r.wordsHeard} (${lost}${r.wordsLostHeldAtKill ? `, ${r.wordsLostHeldAtKill} held at the kill -9` : ''})${mark(lost === 0)}`,
      'lost 0',
    ],
    ...(r.agents?.mcp && r.agents.frames
      ? [
          [
            `MCP tool calls (failed) / frames pushed (refused) / CLI say+ask (${r.agents.cliSaysCut === undefined ? '' : 'cut by a speaker, '}failed)`,
            `${r.agents.mcp.toolCalls} (${r.agents.mcp.toolCallsFailed}) / ${r.agents.frames.pushed} (${r.agents.frames.refused}) / ${r.agents.cliSays} (${r.agents.cliSaysCut === undefined ? '' : `${r.agents.cliSaysCut}, `}${r.agents.cliSaysFailed})`,
            'failures only across the kill -9',
          ] as [string, string, string],
        ]
      : []),
    ...Object.entries(r.guestWords ?? {}).map(([name, g]): [string, string, string] => [
      `${name}'s words spoken / heard by the model`,
      `${g.sent} / ${g.heard}${g.cutByLeaving ? ` (${g.cutByLeaving} cut by leaving)` : ''}${mark(g.heard === g.sent)}`,
      'all heard',
    ]),
    [
      'replies doubled / stale',
      `${r.repliesDoubled} / ${r.repliesStale}${mark(r.repliesDoubled === 0 && r.repliesStale === 0)}`,
      '0 / 0',
    ],
    [
      'answered late (held through the outage), latest',
      r.repliesLate === null || r.repliesLate === undefined
        ? '— (not counted apart then)'
        : `${r.repliesLate}${r.repliesLate ? `, ${r.repliesLateMaxS ?? '—'} s after said` : ''}`,
      'reported, not a target',
    ],
    [
      'reminders due / lost / duplicated (at the receivers)',
      `${r.remindersDue} / ${r.remindersLost} / ${r.remindersDuplicated}${mark(r.remindersLost === 0 && r.remindersDuplicated === 0)}`,
      'lost 0, duplicated 0',
    ],
    ...killGapRows(r),
    [
      'core RSS growth after the first window',
      `${r.rssGrowthMbPerHour ?? '—'} MB/h${mark(r.flat.rss.pass)}`,
      `≤ ${FLAT_TARGETS.rssGrowthMbPerHour} MB/h`,
    ],
    ...(lastHalf !== undefined
      ? ([
          [
            "the same over each core process's second half (the worse)",
            `${lastHalf ?? '—'} MB/h`,
            'reported beside: a warm-up longer than the first window is not in it, a leak is',
          ],
        ] satisfies Row[])
      : []),
    [
      'open fds at the first / last quiet point',
      `${r.fdsFirstQuiet ?? '—'} / ${r.fdsLastQuiet ?? '—'} (${r.quietPoints} quiet points)${mark(r.flat.fds.pass)}`,
      'the same at every quiet point',
    ],
    [
      'active resources at the first / last quiet point',
      `${r.activeResourcesFirstQuiet ?? '—'} / ${r.activeResourcesLastQuiet ?? '—'}${mark(r.flat.activeResources.pass)}`,
      'the same at every quiet point',
    ],
    [
      'core CPU per window (first; lowest – highest)',
      cpuCell(r.flat.cpu.firstWindowPercent, r.flat.cpu.windowsPercent, r.flat.cpu.pass),
      `within ${FLAT_TARGETS.cpuWithinPercentOfFirst} % of the first`,
    ],
    ...(r.flat.cpu.steady?.windowsPercent.length
      ? ([
          [
            'the same without the windows a core started in (the first, the restart)',
            cpuCell(r.flat.cpu.steady.firstPercent, r.flat.cpu.steady.windowsPercent, r.flat.cpu.steady.pass),
            `within ${FLAT_TARGETS.cpuWithinPercentOfFirst} % of the first of them`,
          ],
        ] satisfies Row[])
      : []),
    [
      'model sockets open (max) / core child processes (max)',
      `${r.modelSocketsOpenMax} / ${r.childProcessesMax}`,
      '≤ 2 (handover) / 0',
    ],
    [
      'machine load (1 min avg, start → end)',
      `${r.machine.loadAverage1m} → ${r.machine.loadAverage1mAtEnd} on ${r.machine.cores} cores`,
      '(shared with other work)',
    ],
  ];
}
