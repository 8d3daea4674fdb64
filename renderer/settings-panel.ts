// Settings: model, voice, persona, speakers, channel ids, sfx, sidecar port, and write-only
// secrets. Only changed fields are sent, so values that come from the environment stay there.
// The server's answer says which settings apply at the next call and which need a restart, which
// the panel offers ("Restart now"); a refused value is explained next to its field.
import type { SecretKey, SettingKey, SettingsPatch } from '../main/core/sidecar-client/wire-types.ts';
import { api, ApiError, friendlyMessage, type SettingsResponse } from './api.ts';
import type { GuildDirectory, SetupSecretKey, SetupStateResponse } from '../main/core/sidecar-client/wire-types.ts';
import { byId, h, setBusy, status, waitForRestart } from './dom.ts';
import { ID_CHOICES, type IdChoiceKey } from './id-choices.ts';
import { idSelect } from './id-select.ts';
import { secretSourceWords } from './secret-words.ts';
import {
  asText,
  FIELDS,
  GROUP_OF,
  GROUPS,
  ID_FIELDS,
  providerChoiceLabel,
  SECRET_WORDS,
  SECRETS,
} from './settings-fields.ts';

export class SettingsPanel {
  readonly #form = byId<HTMLFormElement>('settings-form');
  readonly #fields = byId('settings-fields');
  readonly #secretFields = byId('secret-fields');
  readonly #status = byId('settings-status');
  readonly #note = byId('secrets-note');
  readonly #restart = byId<HTMLButtonElement>('settings-restart');
  #data: SettingsResponse | null = null;
  readonly #clear = new Set<SecretKey>();
  /** Where the token and model keys not saved here come from (GET /setup/state), once known. */
  #sources: SetupStateResponse['secretSources'] = {};
  /** What the bot sees in Discord (null until GET /setup/directory answered with a complete list). */
  #directory: GuildDirectory[] | null = null;

  constructor() {
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#save(byId<HTMLButtonElement>('settings-save'));
    });
    this.#restart.addEventListener('click', () => void this.#restartNow());
    this.#form.addEventListener('reset', (event) => {
      event.preventDefault();
      if (this.#data) this.#render(this.#data);
      status(this.#status, '');
    });
  }

  async load(): Promise<SettingsResponse | null> {
    try {
      const [data, setup] = await Promise.all([api.settings(), api.setupState().catch(() => null)]);
      this.#sources = setup?.secretSources ?? {};
      this.#render(data);
      void this.#showNames(data);
      return data;
    } catch (err) {
      status(this.#status, `Could not load settings: ${friendlyMessage(err)}`, 'error');
      return null;
    }
  }

  #render(data: SettingsResponse): void {
    this.#data = data;
    this.#clear.clear();
    const fields = FIELDS.map((f) => ({ group: GROUP_OF[f.key] ?? 'Call and model', element: this.#field(f, data) }));
    this.#fields.replaceChildren(
      ...GROUPS.map((group) =>
        h(
          'fieldset',
          { class: 'settings-group' },
          h('legend', {}, group),
          h('div', { class: 'settings-grid' }, ...fields.filter((f) => f.group === group).map((f) => f.element)),
        ),
      ),
    );
    const { canStore, reason, state } = data.secrets;
    this.#note.hidden = canStore;
    this.#note.textContent = canStore ? '' : `Secrets cannot be saved here: ${reason ?? 'no secure storage'}.`;
    this.#secretFields.replaceChildren(
      ...SECRETS.map((s) => {
        const id = `secret-${s.key}`;
        const input = h('input', {
          id,
          name: s.key,
          type: s.type,
          value: '',
          autocomplete: 'new-password',
          placeholder: state[s.key] === 'stored' ? '••••••••' : '',
          disabled: !canStore,
          'aria-describedby': `${id}-state`,
        });
        const clear =
          state[s.key] === 'stored'
            ? h(
                'button',
                {
                  type: 'button',
                  onclick: (e) => {
                    const button = e.currentTarget as HTMLButtonElement;
                    const on = !this.#clear.has(s.key);
                    if (on) this.#clear.add(s.key);
                    else this.#clear.delete(s.key);
                    button.textContent = on ? 'Will clear' : 'Clear';
                    button.setAttribute('aria-pressed', String(on));
                  },
                },
                'Clear',
              )
            : null;
        return h(
          'div',
          { class: 'field' },
          h('label', { for: id }, s.label),
          h('div', { class: 'secret-row' }, input, clear),
          h(
            'span',
            { class: 'hint', id: `${id}-state` },
            state[s.key] === 'environment' && s.key in this.#sources
              ? `${secretSourceWords(this.#sources[s.key as SetupSecretKey])} Type to replace it here.`
              : SECRET_WORDS[state[s.key]],
          ),
          h('span', { class: 'field-error', id: `${id}-error`, hidden: true }),
        );
      }),
    );
    this.#pickByName();
  }

  /** With the directory known, the owner, server and channels are chosen by name instead of typed as ids. */
  #pickByName(): void {
    if (!this.#directory) return;
    for (const key of Object.keys(ID_CHOICES) as IdChoiceKey[]) {
      const input = document.getElementById(`set-${key}`);
      if (!(input instanceof HTMLInputElement)) continue;
      input.replaceWith(idSelect(key, input, this.#directory));
      const label = this.#form.querySelector(`label[for="set-${key}"]`);
      if (label) label.textContent = ID_CHOICES[key].label;
      // The drop-down names the id itself.
      document.getElementById(`set-${key}-names`)?.remove();
    }
  }

  /** One setting's control: a switch, a drop-down, or a box showing the value in force (not a placeholder). */
  #field(f: (typeof FIELDS)[number], data: SettingsResponse): HTMLElement {
    const stored = data.values[f.key];
    const effective = data.effective[f.key];
    const id = `set-${f.key}`;
    if (f.type === 'bool') {
      const checked = (stored ?? effective ?? true) === true;
      return h(
        'div',
        { class: 'field check' },
        h('input', {
          id,
          type: 'checkbox',
          role: 'switch',
          name: f.key,
          checked,
          'aria-describedby': f.hint ? `${id}-hint` : undefined,
        }),
        h('label', { for: id }, f.label),
        f.hint ? h('span', { class: 'hint', id: `${id}-hint` }, f.hint) : null,
      );
    }
    // Saved settings win over the environment: say so where one hides an environment value.
    const overridden = data.overrides?.[f.key];
    const fromElsewhere = stored === undefined && effective !== undefined;
    const hint = overridden
      ? `Saved here; overrides ${overridden} from the environment. Clear it to use the environment again.`
      : fromElsewhere
        ? `From the environment or the default.${f.hint ? ` ${f.hint}` : ''}`
        : (f.hint ?? '');
    const value = asText(stored ?? effective);
    const control =
      f.type === 'choice'
        ? h(
            'select',
            { id, name: f.key, 'aria-describedby': `${id}-hint ${id}-error` },
            ...(data.providers ?? []).map((p) =>
              h('option', { value: p.name, selected: p.name === value }, providerChoiceLabel(p)),
            ),
          )
        : h('input', {
            id,
            name: f.key,
            type: f.type === 'number' ? 'number' : 'text',
            value,
            placeholder: value ? undefined : 'not set',
            autocomplete: 'off',
            spellcheck: 'false',
            list: f.key === 'voice' ? 'voice-choices' : f.type === 'patience' ? 'patience-choices' : undefined,
            'aria-describedby': `${id}-hint ${id}-error`,
          });
    return h(
      'div',
      { class: 'field' },
      h('label', { for: id }, f.label),
      control,
      f.key === 'voice'
        ? h('datalist', { id: 'voice-choices' }, ...this.#voiceChoices(data).map((v) => h('option', { value: v })))
        : null,
      f.type === 'patience'
        ? h(
            'datalist',
            { id: 'patience-choices' },
            ...['quick', 'natural', 'patient'].map((v) => h('option', { value: v })),
          )
        : null,
      h('span', { class: 'hint', id: `${id}-hint`, hidden: !hint }, hint),
      ID_FIELDS.includes(f.key) ? h('span', { class: 'hint', id: `${id}-names`, hidden: true }) : null,
      h('span', { class: 'field-error', id: `${id}-error`, hidden: true }),
    );
  }

  /** Under each id field: the names those ids have in Discord (or that the bot cannot find them). */
  async #showNames(data: SettingsResponse): Promise<void> {
    if (data.secrets.state.discordBotToken === 'unset') return;
    const answer = await api.directory().catch(() => null);
    if (!answer?.ok) return;
    this.#directory = answer.directory;
    const names = new Map<string, string>();
    for (const g of answer.directory) {
      names.set(g.id, g.name);
      for (const item of [...g.members, ...g.voiceChannels, ...g.textChannels]) names.set(item.id, item.name);
    }
    for (const key of ID_FIELDS) {
      const value = data.values[key] ?? data.effective[key];
      const line = document.getElementById(`set-${key}-names`);
      const ids = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
      if (!line || ids.length === 0) continue;
      status(line, ids.map((id) => names.get(id) ?? `${id} (not among what the bot can see)`).join(', '), 'info');
      line.dataset.kind = ids.every((id) => names.has(id)) ? 'info' : 'warn';
    }
    this.#pickByName();
  }

  /** Voices of the provider the next call will use. */
  #voiceChoices(data: SettingsResponse): readonly string[] {
    const provider = data.values.liveProvider ?? data.effective.liveProvider ?? data.providers?.[0]?.name ?? '';
    return data.voices?.[provider] ?? [];
  }

  /** The server's plain-words problems, each next to its field; true when any was shown. */
  #showFieldErrors(fields: Record<string, string>): boolean {
    let shown = false;
    for (const [key, message] of Object.entries(fields)) {
      const id = (SECRETS as { key: string }[]).some((s) => s.key === key) ? `secret-${key}` : `set-${key}`;
      const line = document.getElementById(`${id}-error`);
      document.getElementById(id)?.setAttribute('aria-invalid', 'true');
      if (line) {
        status(line, message, 'error');
        shown = true;
      }
    }
    return shown;
  }

  #patch(): { patch: SettingsPatch; problems: string[] } {
    const data = this.#data!;
    const values: Record<string, unknown> = {};
    const problems: string[] = [];
    for (const f of FIELDS) {
      const input = this.#form.elements.namedItem(f.key) as HTMLInputElement | HTMLSelectElement;
      input.removeAttribute('aria-invalid');
      const errorLine = document.getElementById(`set-${f.key}-error`);
      if (errorLine) status(errorLine, '');
      if (f.type === 'bool') {
        const before = (data.values[f.key] ?? data.effective[f.key] ?? true) === true;
        const checked = (input as HTMLInputElement).checked;
        if (checked !== before) values[f.key] = checked;
        continue;
      }
      const text = input.value.trim();
      // The box shows the value in force (saved, else environment or default): unchanged sends nothing.
      if (text === asText(data.values[f.key] ?? data.effective[f.key])) continue;
      if (text === '') values[f.key] = null;
      else if (f.type === 'number') {
        const n = Number(text);
        if (Number.isInteger(n)) values[f.key] = n;
        else {
          problems.push(`${f.label} must be a whole number.`);
          input.setAttribute('aria-invalid', 'true');
          status(byId(`set-${f.key}-error`), 'Use a whole number.', 'error');
        }
      } else if (f.type === 'list') values[f.key] = text.split(/[\s,]+/).filter(Boolean);
      // A level or whole ms; the server says what is wrong with anything else.
      else if (f.type === 'patience') values[f.key] = /^\d+$/.test(text) ? Number(text) : text.toLowerCase();
      else values[f.key] = text;
    }
    const secrets: Record<string, string | null> = {};
    for (const s of SECRETS) {
      const text = (this.#form.elements.namedItem(s.key) as HTMLInputElement).value.trim();
      if (text) secrets[s.key] = text;
      else if (this.#clear.has(s.key)) secrets[s.key] = null;
    }
    const patch: SettingsPatch = {};
    if (Object.keys(values).length) patch.values = values as SettingsPatch['values'];
    if (Object.keys(secrets).length) patch.secrets = secrets as SettingsPatch['secrets'];
    return { patch, problems };
  }

  async #restartNow(): Promise<void> {
    setBusy(this.#restart, true, 'Restarting…');
    try {
      const newPort = this.#data?.pendingRestart.includes('sidecarPort') ? this.#data.values.sidecarPort : undefined;
      const before = this.#data?.lastRestart?.at;
      await api.restart();
      this.#restart.hidden = true;
      status(this.#status, 'Restarting…', 'info');
      // A restart that ends without the saved settings (refused before anything stopped, or the
      // previous settings started again) leaves a core answering here whose `lastRestart` says why.
      let refused: string | null = null;
      const check = async (): Promise<SettingsResponse> => {
        const next = await api.settings();
        const last = next.lastRestart;
        if (last && last.at !== before && !last.applied) refused = last.message;
        return next;
      };
      if (newPort !== undefined) {
        // This address dies with the old port unless the restart was refused: look briefly, then
        // say where the dashboard went instead of waiting.
        for (let i = 0; i < 10 && refused === null; i++) {
          await new Promise((resolve) => setTimeout(resolve, 300));
          const next = await check().catch(() => null);
          if (!next || (next.lastRestart?.at !== before && next.lastRestart?.applied)) break;
        }
        if (refused === null)
          return status(
            this.#status,
            `Restarting on port ${newPort}: this page will not reconnect. Open the dashboard again from the tray or with \`live-voice-bridge dashboard\`.`,
            'warn',
          );
      } else {
        // The page starts afresh once the new core answers (the sign-in survives the restart).
        const settled = await waitForRestart(
          async () => (await check()).pendingRestart.length === 0 || refused !== null,
        );
        if (refused === null) {
          if (settled) location.reload();
          else
            status(
              this.#status,
              'Live Voice Bridge did not come back within 30 s; check its terminal or log.',
              'error',
            );
          return;
        }
      }
      this.#restart.hidden = false;
      status(this.#status, `The saved settings were not applied: ${refused}`, 'error');
    } catch (err) {
      status(this.#status, friendlyMessage(err), 'error');
    } finally {
      setBusy(this.#restart, false);
    }
  }

  async #save(button: HTMLButtonElement): Promise<void> {
    if (!this.#data) return;
    const { patch, problems } = this.#patch();
    if (problems.length) return status(this.#status, problems.join(' '), 'error');
    if (!patch.values && !patch.secrets) return status(this.#status, 'Nothing changed.', 'info');
    setBusy(button, true, 'Saving…');
    try {
      const saved = await api.saveSettings(patch);
      this.#render(saved);
      const changed = Object.keys(patch.values ?? {}) as SettingKey[];
      const needsRestart =
        saved.pendingRestart.length > 0 ||
        patch.secrets !== undefined ||
        changed.some((k) => saved.applies[k] === 'restart');
      status(
        this.#status,
        needsRestart ? 'Saved. Some changes need a restart.' : 'Saved. Applies at the next call, no restart needed.',
        needsRestart ? 'warn' : 'ok',
      );
      this.#restart.hidden = !(needsRestart && saved.canRestart);
    } catch (err) {
      const shown = err instanceof ApiError && this.#showFieldErrors(err.fields);
      status(
        this.#status,
        shown ? 'Not saved: please correct the fields marked in red.' : friendlyMessage(err),
        'error',
      );
    } finally {
      setBusy(button, false);
    }
  }
}
