// The first-run page (/setup): what is missing, the bot token and the model key each with a Test
// against the service (through the sidecar), the owner and channels picked by name, Save, and
// "Restart now" when the saved choices need one. Secrets typed here are sent once and never shown.
import type {
  DiscordCheckResult,
  GuildDirectory,
  SettingsPatch,
  SetupSecretKey,
  SetupStateResponse,
} from '../main/core/sidecar-client/wire-types.ts';
import { api, ApiError, friendlyMessage } from './api.ts';
import { byId, h, setBusy, status, waitForRestart } from './dom.ts';
import { secretSourceWords } from './secret-words.ts';

const STATE_WORDS: Record<string, string> = {
  stored: 'Saved.',
  unset: 'Not set.',
  unreadable: 'Saved, but the keyring changed: paste it again.',
};

/** A secret's state in words; one from outside the app names where it really comes from. */
function secretWords(key: SetupSecretKey): string {
  const secret = state?.secrets[key];
  if (secret !== 'environment') return secret ? (STATE_WORDS[secret] ?? '') : '';
  return `${secretSourceWords(state?.secretSources?.[key])} Saving one here takes its place.`;
}

const summary = byId('setup-summary');
const token = byId<HTMLInputElement>('setup-token');
const key = byId<HTMLInputElement>('setup-key');
const provider = byId<HTMLSelectElement>('setup-provider');
const patience = byId<HTMLSelectElement>('setup-patience');
const owner = byId<HTMLSelectElement>('setup-owner');
const ownerId = byId<HTMLInputElement>('setup-owner-id');
const guild = byId<HTMLSelectElement>('setup-guild');
const voice = byId<HTMLSelectElement>('setup-voice');
const text = byId<HTMLSelectElement>('setup-text');
const saveStatus = byId('setup-status');
const restartButton = byId<HTMLButtonElement>('setup-restart');
let state: SetupStateResponse | null = null;
let directory: GuildDirectory[] = [];
/** Discord was asked for names (at load, with the saved token, or by Test Discord). */
let directoryAsked = false;

/** Field name on the server → the element whose error line shows it. */
const ERROR_TARGET: Record<string, string> = {
  token: 'token',
  discordBotToken: 'token',
  key: 'key',
  geminiApiKey: 'key',
  openaiApiKey: 'key',
  ownerId: 'ownerId',
  guildId: 'guildId',
  voiceChannelId: 'voiceChannelId',
  textChannelId: 'textChannelId',
};
const INPUT_OF: Record<string, HTMLElement> = {
  token,
  key,
  ownerId,
  guildId: guild,
  voiceChannelId: voice,
  textChannelId: text,
};

function clearErrors(): void {
  for (const [name, input] of Object.entries(INPUT_OF)) {
    input.removeAttribute('aria-invalid');
    const line = document.getElementById(`setup-${name}-error`);
    if (line) status(line, '');
  }
}

/** The saved patience; one in ms (from Settings or the CLI) is offered as itself, so Save keeps it. */
function showPatience(value: SetupStateResponse['values']['patience']): void {
  patience.querySelector('option[data-ms]')?.remove();
  if (typeof value === 'number')
    patience.append(h('option', { value: String(value), 'data-ms': 'true' }, `${value} ms (set in Settings)`));
  patience.value = String(value);
}

/** Shows each field's problem next to it; true when any was shown. */
function showFieldErrors(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  let shown = false;
  for (const [field, message] of Object.entries(err.fields)) {
    const target = ERROR_TARGET[field];
    const line = target ? document.getElementById(`setup-${target}-error`) : null;
    if (!target || !line) continue;
    INPUT_OF[target]?.setAttribute('aria-invalid', 'true');
    status(line, message, 'error');
    shown = true;
  }
  return shown;
}

/** A drop-down of names; an id in force that is not among them (Discord not asked yet, or out of sight) stays chosen, as its id. */
function options(
  select: HTMLSelectElement,
  first: string,
  items: { id: string; name: string }[],
  selected?: string,
): void {
  const known = !selected || items.some((i) => i.id === selected);
  const unnamed = known
    ? []
    : [
        {
          id: selected,
          name: `${selected} (${directoryAsked ? 'not among what the bot can see' : 'asking Discord for its name…'})`,
        },
      ];
  select.replaceChildren(
    h('option', { value: '' }, first),
    ...[...items, ...unnamed].map((i) => h('option', { value: i.id, selected: i.id === selected }, i.name)),
  );
}

function renderDirectory(): void {
  const people = directory.flatMap((g) =>
    g.members.map((m) => ({ id: m.id, name: directory.length > 1 ? `${m.name} (${g.name})` : m.name })),
  );
  const unique = [...new Map(people.map((p) => [p.id, p])).values()];
  const wanted = ownerId.value.trim() || state?.values.ownerId;
  options(
    owner,
    !directoryAsked
      ? '— test Discord to list people —'
      : unique.length
        ? '— pick yourself —'
        : '— no people listed (paste your id) —',
    unique,
    wanted,
  );
  options(guild, 'Any server shared with the owner', directory, guild.value || state?.values.guildId);
  renderChannels();
}

function renderChannels(): void {
  const shown = guild.value ? directory.filter((g) => g.id === guild.value) : directory;
  const label = (g: GuildDirectory, c: { id: string; name: string }) => ({
    id: c.id,
    name: shown.length > 1 ? `${c.name} (${g.name})` : c.name,
  });
  options(
    voice,
    'Follow the owner',
    shown.flatMap((g) => g.voiceChannels.map((c) => label(g, c))),
    voice.value || state?.values.voiceChannelId,
  );
  options(
    text,
    'None (direct messages)',
    shown.flatMap((g) => g.textChannels.map((c) => label(g, c))),
    text.value || state?.values.textChannelId,
  );
}

/** The provider picked in the drop-down, as the server describes it. */
function chosenProvider(): SetupStateResponse['providers'][number] | undefined {
  return state?.providers.find((p) => p.name === provider.value);
}

function chosenOwner(): string | undefined {
  return ownerId.value.trim() || owner.value || undefined;
}

function renderState(next: SetupStateResponse): void {
  state = next;
  const missing = next.missing.filter((m) => !next.savedPendingRestart.includes(m.variable));
  if (next.configured) status(summary, 'Everything a call needs is set. Test again or change anything below.', 'ok');
  else if (missing.length === 0) status(summary, 'Everything is saved; restart to use it.', 'warn');
  else status(summary, `Still missing: ${missing.map((m) => m.words).join(', ')}.`, 'warn');
  if (provider.options.length !== next.providers.length)
    provider.replaceChildren(...next.providers.map((p) => h('option', { value: p.name }, p.label)));
  provider.value = next.values.liveProvider;
  showPatience(next.values.patience);
  renderSecretStates();
  if (next.values.ownerId && !ownerId.value) ownerId.value = next.values.ownerId;
  // The saved owner and channels show at once (as ids until Discord names them).
  renderDirectory();
  const note = byId('setup-secrets-note');
  status(
    note,
    next.canStoreSecrets
      ? ''
      : `Secrets cannot be saved here (${next.secretsNote ?? 'no secure storage'}). Tests still work.`,
    'warn',
  );
  restartButton.hidden = !(next.canRestart && next.savedPendingRestart.length > 0);
}

/** Under each secret: its state, or nothing while something is typed there (it is what Save sends). */
function renderSecretStates(): void {
  const chosen = chosenProvider();
  byId('setup-key-label').textContent = chosen?.keyLabel ?? 'API key';
  byId('setup-token-state').textContent = token.value.trim() ? '' : secretWords('discordBotToken');
  const keyWords = chosen?.keySecret
    ? secretWords(chosen.keySecret)
    : chosen
      ? (STATE_WORDS[chosen.keyState] ?? '')
      : '';
  byId('setup-key-state').textContent = key.value.trim() ? '' : keyWords;
}

/** With a token in force, Discord is asked for names at once: the saved owner and channels read as names without pressing Test. */
async function loadDirectory(): Promise<void> {
  if (!state || state.secrets.discordBotToken === 'unset') return;
  try {
    const answer = await api.directory();
    directory = answer.directory;
  } catch {
    // Not answered (token refused, Discord unreachable): the ids stay shown; Test Discord says why.
  }
  directoryAsked = true;
  renderDirectory();
}

function renderDiscord(result: DiscordCheckResult): void {
  byId('discord-checks').replaceChildren(
    ...result.checks.map((c) => h('li', { 'data-ok': String(c.ok), 'data-step': c.step }, c.message)),
  );
  const row = byId('invite-row');
  row.hidden = !result.invite;
  const link = byId<HTMLAnchorElement>('invite-link');
  link.href = result.invite ?? '#';
  link.textContent = result.invite ?? '';
  directory = result.directory;
  directoryAsked = true;
  renderDirectory();
}

async function testDiscord(button: HTMLButtonElement): Promise<void> {
  clearErrors();
  setBusy(button, true, 'Testing…');
  try {
    renderDiscord(
      await api.testDiscord({
        token: token.value.trim() || undefined,
        ownerId: chosenOwner(),
        guildId: guild.value || undefined,
        voiceChannelId: voice.value || undefined,
      }),
    );
  } catch (err) {
    if (!showFieldErrors(err))
      byId('discord-checks').replaceChildren(h('li', { 'data-ok': 'false' }, friendlyMessage(err)));
  } finally {
    setBusy(button, false);
  }
}

async function testModel(button: HTMLButtonElement): Promise<void> {
  clearErrors();
  const line = byId('model-result');
  setBusy(button, true, 'Testing…');
  status(line, 'Opening a session with the model…', 'info');
  try {
    const result = await api.testModel({ provider: provider.value, key: key.value.trim() || undefined });
    status(line, result.message, result.ok ? (result.fallback ? 'warn' : 'ok') : 'error');
  } catch (err) {
    status(line, showFieldErrors(err) ? '' : friendlyMessage(err), 'error');
  } finally {
    setBusy(button, false);
  }
}

function patch(): SettingsPatch {
  const values: NonNullable<SettingsPatch['values']> = {};
  const person = chosenOwner();
  if (person) values.ownerId = person;
  // Only what the person changed: an id saved earlier stays when the lists were never loaded.
  const picks = [
    ['guildId', guild],
    ['voiceChannelId', voice],
    ['textChannelId', text],
  ] as const;
  for (const [name, select] of picks) if (select.dataset.changed === 'true') values[name] = select.value || null;
  if (state && patience.value !== String(state.values.patience))
    values.patience = /^\d+$/.test(patience.value)
      ? Number(patience.value)
      : (patience.value as 'quick' | 'natural' | 'patient');
  if (state && provider.value !== state.values.liveProvider)
    values.liveProvider = provider.value as NonNullable<SettingsPatch['values']>['liveProvider'];
  const secrets: NonNullable<SettingsPatch['secrets']> = {};
  if (token.value.trim()) secrets.discordBotToken = token.value.trim();
  const keySecret = chosenProvider()?.keySecret;
  if (key.value.trim() && keySecret) secrets[keySecret] = key.value.trim();
  return Object.keys(secrets).length ? { values, secrets } : { values };
}

async function save(button: HTMLButtonElement): Promise<void> {
  clearErrors();
  setBusy(button, true, 'Saving…');
  try {
    await api.saveSettings(patch());
    token.value = '';
    key.value = '';
    renderState(await api.setupState());
    status(saveStatus, restartButton.hidden ? 'Saved.' : 'Saved. Restart now to use it.', 'ok');
  } catch (err) {
    status(
      saveStatus,
      showFieldErrors(err) ? 'Please correct the fields marked in red.' : friendlyMessage(err),
      'error',
    );
  } finally {
    setBusy(button, false);
  }
}

async function restart(button: HTMLButtonElement): Promise<void> {
  setBusy(button, true, 'Restarting…');
  try {
    await api.restart();
    status(saveStatus, 'Restarting…', 'info');
    // The sidecar goes away and comes back (sign-ins survive an in-process restart).
    let next: SetupStateResponse | null = null;
    const back = await waitForRestart(async () => {
      next = await api.setupState();
      return next.savedPendingRestart.length === 0;
    });
    if (back && next) {
      renderState(next);
      status(
        saveStatus,
        (next as SetupStateResponse).configured
          ? 'Restarted with the new settings. Back to the dashboard to join a call.'
          : 'Restarted.',
        'ok',
      );
    } else status(saveStatus, 'The bridge did not come back within 30 s; check its terminal or log.', 'error');
  } catch (err) {
    status(saveStatus, friendlyMessage(err), 'error');
  } finally {
    setBusy(button, false);
  }
}

byId<HTMLFormElement>('setup-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void save(byId<HTMLButtonElement>('setup-save'));
});
byId<HTMLButtonElement>('test-discord').addEventListener(
  'click',
  (e) => void testDiscord(e.currentTarget as HTMLButtonElement),
);
byId<HTMLButtonElement>('test-model').addEventListener(
  'click',
  (e) => void testModel(e.currentTarget as HTMLButtonElement),
);
restartButton.addEventListener('click', () => void restart(restartButton));
byId<HTMLButtonElement>('copy-invite').addEventListener('click', (e) => {
  const button = e.currentTarget as HTMLButtonElement;
  navigator.clipboard.writeText(byId<HTMLAnchorElement>('invite-link').href).then(
    () => (button.textContent = 'Copied'),
    () => (button.textContent = 'Copy failed: select the link'),
  );
});
provider.addEventListener('change', renderSecretStates);
for (const input of [token, key]) input.addEventListener('input', renderSecretStates);
guild.addEventListener('change', renderChannels);
for (const select of [guild, voice, text]) select.addEventListener('change', () => (select.dataset.changed = 'true'));
// Another server makes the channels chosen in the old one meaningless.
guild.addEventListener('change', () => (voice.dataset.changed = text.dataset.changed = 'true'));
owner.addEventListener('change', () => {
  if (owner.value) ownerId.value = owner.value;
});

api.setupState().then(
  (next) => {
    renderState(next);
    void loadDirectory();
  },
  (err: unknown) => status(summary, friendlyMessage(err), 'error'),
);
