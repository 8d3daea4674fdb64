// The call's optional voice check (the `sileroVad` setting; docs/audio.md "Phantom turns"): Silero
// loaded once per core, on the first call that asks for it, and handed to each call that does. A
// missing package or a model that does not load is said once, in the log and the call's notes, and
// the call runs on the energy gate alone.
import type { Logger } from 'pino';
import { loadSileroClassifier } from './silero-classifier.ts';
import type { VoiceActivityClassifier } from './voice-classifier.ts';

export class VoiceCheck {
  readonly #enabled: () => boolean;
  readonly #log: Logger;
  readonly #note: (text: string) => void;
  #loading: Promise<VoiceActivityClassifier | null> | null = null;

  constructor(enabled: () => boolean, logger: Logger, note: (text: string) => void) {
    this.#enabled = enabled;
    this.#log = logger;
    this.#note = note;
  }

  /** The classifier for the call starting now, or null (off, or not available). */
  forCall(): Promise<VoiceActivityClassifier | null> {
    if (!this.#enabled()) return Promise.resolve(null);
    this.#loading ??= loadSileroClassifier().then((load) => {
      if (load.ok) return load.classifier;
      this.#log.warn(
        { reason: load.reason },
        'the Silero voice check is not available; the energy gate alone opens turns',
      );
      this.#note(`Silero voice check not available (${load.reason}): turns open on the energy gate alone.`);
      return null;
    });
    return this.#loading;
  }
}
