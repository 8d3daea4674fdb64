// Tiny DOM helpers: enough to build the panels without a framework.

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el as T;
}

type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/** `h('button', { class: 'x', onclick: fn }, 'Label')`: text children are set as text, never as HTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

export function setBusy(button: HTMLButtonElement, busy: boolean, busyLabel?: string): void {
  if (busy) {
    button.dataset.label ??= button.textContent ?? '';
    if (busyLabel) button.textContent = busyLabel;
  } else if (button.dataset.label !== undefined) {
    button.textContent = button.dataset.label;
    delete button.dataset.label;
  }
  button.disabled = busy;
  button.setAttribute('aria-busy', String(busy));
}

/** A short-lived message in the corner (errors stay until dismissed); `action` adds a button (e.g. Undo) that closes it. */
export function toast(
  message: string,
  kind: 'ok' | 'warn' | 'error' = 'ok',
  action?: { label: string; run: () => void },
): void {
  const host = byId('toasts');
  const close = h('button', { class: 'toast-close', 'aria-label': 'Dismiss', onclick: () => item.remove() }, '×');
  const act = action
    ? h(
        'button',
        {
          type: 'button',
          class: 'link',
          onclick: () => {
            item.remove();
            action.run();
          },
        },
        action.label,
      )
    : null;
  const item = h(
    'div',
    { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    h('span', {}, message),
    act,
    close,
  );
  host.append(item);
  // Long enough to reach an action button.
  if (kind === 'ok') setTimeout(() => item.remove(), action ? 10_000 : 4000);
}

/** A panel's status line: `ok` or `error` text under its controls. */
export function status(el: HTMLElement, message: string, kind: 'ok' | 'warn' | 'error' | 'info' = 'info'): void {
  el.textContent = message;
  el.dataset.kind = kind;
  el.hidden = message === '';
}

/** Actions outside the call panel that need the core: held (disabled) while the page is not live (the screenshot panel follows the call view itself). */
const CORE_ACTIONS =
  '#sched-submit, #notify-now, #notes-handoff, #settings-save, #schedule-list button, #approvals button';

/** Disable every core action while `hold`; release only those this disabled (others keep their own reasons). */
export function holdActions(hold: boolean): void {
  for (const el of document.querySelectorAll<HTMLButtonElement | HTMLInputElement>(CORE_ACTIONS)) {
    if (hold && !el.disabled) {
      el.disabled = true;
      el.dataset.held = '';
    } else if (!hold && el.dataset.held !== undefined) {
      el.disabled = false;
      delete el.dataset.held;
    }
  }
}

/** Polls `ready` every 0.5 s (errors mean "still restarting") for up to 30 s. */
export async function waitForRestart(ready: () => Promise<boolean>): Promise<boolean> {
  for (let attempt = 0; attempt < 60; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (await ready().catch(() => false)) return true;
  }
  return false;
}
