// A spoken-text request's outcome in words (api-types.ts SayOutcome), the same in the notes and on
// the CLI: on the bottom floor so the bridge and the clients share one wording. The shape is spelt
// out here (a neighbour on floor 0 is not imported); SayOutcome has these fields.

export interface OutcomeFacts {
  outcome: 'spoken' | 'cut' | 'dropped' | 'waiting';
  spoken_text: string | null;
  reason: string | null;
}

/**
 * A settled outcome in words, the way the CLI prints it: `Spoken.`, `Cut off after "The build is" —
 * Alice spoke.`, `Not spoken: the call ended before it was spoken (stopped from the dashboard).`
 */
export function outcomeWords(o: OutcomeFacts): string {
  switch (o.outcome) {
    case 'spoken':
      return 'Spoken.';
    case 'cut': {
      const heard = o.spoken_text ? `Cut off after "${o.spoken_text}"` : 'Cut off before a word was heard';
      return `${heard}${o.reason ? ` — ${o.reason}` : ''}.`;
    }
    case 'dropped':
      return `Not spoken: ${o.reason ?? 'dropped'}.`;
    case 'waiting':
      return `Still waiting: ${o.reason ?? 'not spoken yet'}.`;
  }
}
