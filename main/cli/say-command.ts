// `live-voice-bridge announce|ask|say "text"`: hand the text to the call, then (unless --no-wait)
// wait for what became of it and say so: `Spoken.`, `Cut off after "The build is" — Alice spoke.`,
// or why it was not spoken. The outcome is read from GET /say/{id} (the sidecar settles it once the
// reply was played out to Discord, cut, or dropped; docs/sidecar.md).
import type { SayOutcome } from '../core/api-types.ts';
import { outcomeWords } from '../core/contracts/say-outcome-words.ts';
import type { SidecarClient, SpokenTextAnswer } from '../core/sidecar-client/client.ts';
import { errorMessageOf, EXIT } from './sidecar-client.ts';

/**
 * How long the CLI waits for an outcome: a text waits up to 120 s for a pause in the conversation
 * (bridge/call-requests.ts), then its reply is spoken (reply-follower.ts gives that 30 s to start).
 */
export const SAY_WAIT_MS = 180_000;
const POLL_MS = 200;

export interface SayWaitOptions {
  json: boolean;
  write: (line: string) => void;
  writeError: (line: string) => void;
  waitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** The exit code of an outcome: spoken 0, cut 4 (partly heard), dropped 1 (safe to send again), still waiting 6. */
export function sayExitCode(outcome: SayOutcome['outcome']): number {
  switch (outcome) {
    case 'spoken':
      return EXIT.ok;
    case 'cut':
      return EXIT.partial;
    case 'dropped':
      return EXIT.failed;
    case 'waiting':
      return EXIT.noAnswer;
  }
}

/** Waits for the outcome of `answer` (a /say, /announce or /ask just accepted) and prints it. */
export async function waitForSpoken(
  client: SidecarClient,
  answer: SpokenTextAnswer,
  options: SayWaitOptions,
): Promise<number> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + (options.waitMs ?? SAY_WAIT_MS);
  let last: SayOutcome;
  for (;;) {
    const response = await client.sayOutcome(answer.id);
    if (response.status >= 400) {
      options.writeError(`error ${response.status}: ${errorMessageOf(response.body)}`);
      return EXIT.failed;
    }
    last = response.body;
    if (last.outcome !== 'waiting' || Date.now() >= deadline) break;
    await sleep(POLL_MS);
  }
  if (options.json) options.write(JSON.stringify(last, null, 2));
  else if (last.outcome === 'waiting')
    options.write(`${outcomeWords(last)} Its outcome will be at GET /say/${last.id}.`);
  else options.write(outcomeWords(last));
  return sayExitCode(last.outcome);
}
