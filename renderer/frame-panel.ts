// Screenshot → /frame. In the desktop app the preload captures the screen; in a browser we use
// getDisplayMedia (the browser asks which screen), an image picker, or a pasted image.
import type { DesktopApi } from '../preload/desktop-api.ts';
import { api, friendlyMessage } from './api.ts';
import type { CallView } from './call-view-state.ts';
import { byId, setBusy, status } from './dom.ts';
import { withTimeout } from './format.ts';
import { frameDropMessage } from './frame-messages.ts';

export function desktopApi(): DesktopApi | undefined {
  return (window as unknown as { liveVoiceBridgeDesktop?: DesktopApi }).liveVoiceBridgeDesktop;
}

const ACCEPTED = new Set(['image/png', 'image/jpeg', 'image/webp']);
/** The desktop capture and reading a frame from the chosen screen; the browser's own picker waits for the user. */
const CAPTURE_TIMEOUT_MS = 20_000;
const CAPTURE_TIMEOUT_MESSAGE = 'the capture did not finish within 20 s';

export class FramePanel {
  readonly #capture = byId<HTMLButtonElement>('capture-button');
  readonly #file = byId<HTMLInputElement>('frame-file');
  readonly #result = byId('frame-result');
  readonly #thumb = byId<HTMLImageElement>('frame-thumb');
  readonly #answer = byId('frame-answer');
  readonly #status = byId('frame-status');
  readonly #picker = document.querySelector<HTMLElement>('label[for="frame-file"]');
  readonly #waits = byId('frame-waits');
  #thumbUrl: string | null = null;
  readonly #canCapture = desktopApi() !== undefined || navigator.mediaDevices?.getDisplayMedia !== undefined;
  /** Why a frame cannot go now (no call, the page not linked), or null in a call. */
  #waitReason: string | null = 'Waiting for Live Voice Bridge.';
  #capturing = false;

  constructor() {
    if (!this.#canCapture)
      this.#capture.title = 'This browser cannot capture the screen; choose or paste an image instead.';
    this.#render();
    this.#capture.addEventListener('click', () => void this.#captureScreen());
    this.#file.addEventListener('change', () => {
      const file = this.#file.files?.[0];
      this.#file.value = '';
      if (file) void this.send(file);
    });
    document.addEventListener('paste', (event) => {
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA')) return;
      const item = [...(event.clipboardData?.items ?? [])].find((i) => i.kind === 'file' && ACCEPTED.has(i.type));
      const file = item?.getAsFile();
      if (file) {
        event.preventDefault();
        if (this.#waitReason) status(this.#status, this.#waitReason, 'info');
        else void this.send(file);
      }
    });
  }

  /** The call panel's view: frames go to the model in a call (parked too: a frame wakes it), else the controls wait and say why. */
  applyCall(view: CallView): void {
    this.#waitReason = view.frame.enabled ? null : view.frame.reason;
    this.#render();
  }

  #render(): void {
    const waiting = this.#waitReason !== null;
    if (!this.#capturing) this.#capture.disabled = waiting || !this.#canCapture;
    this.#file.disabled = waiting;
    if (waiting) this.#picker?.setAttribute('aria-disabled', 'true');
    else this.#picker?.removeAttribute('aria-disabled');
    this.#waits.hidden = !waiting;
    this.#waits.textContent = this.#waitReason ?? '';
  }

  async #captureScreen(): Promise<void> {
    setBusy(this.#capture, true, 'Capturing…');
    this.#capturing = true;
    try {
      const image = await captureImage();
      if (image) await this.send(image);
    } catch (err) {
      status(
        this.#status,
        `Could not capture the screen: ${friendlyMessage(err)}. You can choose or paste an image instead.`,
        'error',
      );
    } finally {
      this.#capturing = false;
      setBusy(this.#capture, false);
      this.#render();
    }
  }

  async send(image: Blob): Promise<void> {
    if (!ACCEPTED.has(image.type)) {
      // The previous image's answer would read as this file's: clear it.
      this.#result.hidden = true;
      this.#answer.textContent = '';
      delete this.#answer.dataset.status;
      return status(
        this.#status,
        `That file is ${image.type || 'not an image'}; send a PNG, JPEG or WebP image.`,
        'error',
      );
    }
    if (this.#thumbUrl) URL.revokeObjectURL(this.#thumbUrl);
    this.#thumbUrl = URL.createObjectURL(image);
    this.#thumb.src = this.#thumbUrl;
    this.#result.hidden = false;
    this.#answer.textContent = `Sending ${Math.round(image.size / 1024)} KB…`;
    status(this.#status, '');
    try {
      const answer = await api.frame(image);
      const facts = Object.entries(answer)
        .filter(([k, v]) => k !== 'status' && (typeof v === 'string' || typeof v === 'number'))
        .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${v}`);
      this.#answer.textContent = `Server answer: ${answer.status}${facts.length ? ` (${facts.join(', ')})` : ''}`;
      this.#answer.dataset.status = answer.status;
      status(
        this.#status,
        answer.status === 'sent' ? 'The model received the image.' : frameDropMessage(answer.reason),
        answer.status === 'sent' ? 'ok' : 'info',
      );
    } catch (err) {
      this.#answer.textContent = 'Not sent.';
      this.#answer.dataset.status = 'error';
      status(this.#status, friendlyMessage(err), 'error');
    }
  }
}

/** A PNG of the screen: through the desktop app's preload, or the browser's screen picker. */
async function captureImage(): Promise<Blob | null> {
  const desktop = desktopApi();
  if (desktop) {
    const shot = await withTimeout(desktop.captureScreenshot(), CAPTURE_TIMEOUT_MS, CAPTURE_TIMEOUT_MESSAGE);
    if (!shot.ok) throw new Error(shot.error);
    return new Blob([shot.data as Uint8Array<ArrayBuffer>], { type: shot.mime });
  }
  const stream = await navigator.mediaDevices.getDisplayMedia({ video: true, audio: false });
  try {
    const video = document.createElement('video');
    video.muted = true;
    video.srcObject = stream;
    await withTimeout(video.play(), CAPTURE_TIMEOUT_MS, CAPTURE_TIMEOUT_MESSAGE);
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext('2d')!.drawImage(video, 0, 0);
    return await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  } finally {
    stream.getTracks().forEach((t) => t.stop());
  }
}
