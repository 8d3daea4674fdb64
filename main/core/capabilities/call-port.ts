// The live call as the capabilities started BEFORE the bridge reach it. Why a late-bound port: the
// bridge is built from usage (its join refusal), the reminders (its pending context), the owner's
// questions and the MCP tools (they hear the transcript), so they must start first; yet each of them
// also speaks into, plays into, parks or reads the call. Rather than closures over a variable defined
// later, they get this narrow handle: empty until the bridge capability binds it, empty again once
// the bridge has stopped.
import type { Bridge } from '../bridge/bridge.ts';
import type { VoiceHandOff } from '../notify/types.ts';

export class CallPort {
  private bridge: Bridge | null = null;

  /** The configured bridge, or null (not built yet, not configured, or stopped). */
  get current(): Bridge | null {
    return this.bridge;
  }

  bind(bridge: Bridge | null): void {
    this.bridge = bridge;
  }

  /** Text for the model to say at an idle moment within two minutes; refused without a call. */
  speakSoon(text: string): Promise<VoiceHandOff> {
    return this.bridge
      ? this.bridge.speak(text, { withinMs: 120_000 })
      : Promise.resolve({ delivered: false, reason: 'no live call' });
  }
}
