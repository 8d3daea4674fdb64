// Provider-neutral wording around text the model should speak (/say, voice notifications).

/** Default wording that turns a relayed message into something the model says, not answers. */
export function defaultInjectedText(text: string): string {
  return `Say the following to the user now, in your own voice, without adding anything else: ${text}`;
}
