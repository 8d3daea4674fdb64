// The settings store: user choices (validated), desktop preferences, and write-only secrets kept
// as OS-encrypted ciphertext. One implementation over a small key/value backing, so the headless
// shell (conf) and the Electron shell (electron-store, a conf subclass) behave the same way.
import { CONFIG_VARIABLES, type VariableName, type VariableSpec } from '../config/index.ts';
import {
  DesktopPrefsSchema,
  parseStoredValues,
  SECRET_KEYS,
  SECRET_VARIABLES,
  SettingsPatchSchema,
  settingsToConfigValues,
  type DesktopPrefs,
  type SecretKey,
  type SettingsPatch,
  type SettingsValues,
} from './schema.ts';
import type { z } from 'zod';
import { plainFieldErrors, plainSummary } from './field-errors.ts';
import { canDecryptWith, secretStorageVerdict, type SecretVault } from './secret-policy.ts';
import { maskSecretsInValues } from './mask-values.ts';
import { CodedError } from '../contracts/coded-error.ts';

/** Where a secret comes from, as far as anyone outside the main process may know. */
export type SecretState = 'stored' | 'environment' | 'unset' | 'unreadable';

export interface SecretsReport {
  /** Whether this process can store secrets (encrypted by the OS); if not, `reason` says why. */
  canStore: boolean;
  reason?: string;
  state: Record<SecretKey, SecretState>;
}

export interface SettingsView {
  /** Only what the user chose; absent keys fall back to the environment or defaults. */
  values: SettingsValues;
  secrets: SecretsReport;
  /** Keys found in the settings file that failed validation and were ignored. */
  rejected: string[];
}

export interface SettingsStore {
  view(): Promise<SettingsView>;
  /** Validates the whole patch first; writes nothing if any part is refused. */
  update(patch: SettingsPatch): Promise<SettingsView>;
  /** Config-loader input with secrets decrypted. Main process only: never send this over HTTP. */
  configValues(): Promise<Partial<Record<VariableName, string>>>;
  desktopPrefs(): DesktopPrefs;
  updateDesktopPrefs(patch: Partial<DesktopPrefs>): DesktopPrefs;
}

export class SettingsError extends CodedError<'invalid_settings' | 'secrets_unavailable'> {
  /** Field → what is wrong, in plain words. */
  readonly fields: Record<string, string> | undefined;
  constructor(code: SettingsError['code'], message: string, fields?: Record<string, string>) {
    super(code, message);
    this.fields = fields;
  }
}

function invalid(issues: readonly z.core.$ZodIssue[]): SettingsError {
  const fields = plainFieldErrors(issues);
  return new SettingsError('invalid_settings', plainSummary(fields), fields);
}

/** The part of conf / electron-store this module uses. */
export interface SettingsBacking {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
}

export interface KeyValueSettingsStoreOptions {
  backing: SettingsBacking;
  /** The OS secret store; absent in headless mode, where secrets come from the environment. */
  vault?: SecretVault;
  /** For reporting secrets that come from the environment; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Told about keys dropped while reading the file (never their values). */
  onRejected?: (keys: string[]) => void;
}

const KEY_VALUES = 'values';
const KEY_SECRETS = 'secrets';
const KEY_SECRET_BACKEND = 'secretBackend';
const KEY_DESKTOP = 'desktop';

export class KeyValueSettingsStore implements SettingsStore {
  readonly #backing: SettingsBacking;
  readonly #vault: SecretVault | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #onRejected: ((keys: string[]) => void) | undefined;

  constructor(options: KeyValueSettingsStoreOptions) {
    this.#backing = options.backing;
    this.#vault = options.vault;
    this.#env = options.env ?? process.env;
    this.#onRejected = options.onRejected;
  }

  async view(): Promise<SettingsView> {
    const { values, rejected } = this.#readValues();
    const status = await this.#vault?.status();
    const verdict = secretStorageVerdict(status);
    const stored = this.#readCiphertexts();
    const readable = canDecryptWith(this.#storedBackend(), status);
    const state = {} as Record<SecretKey, SecretState>;
    for (const key of SECRET_KEYS) {
      if (stored[key] !== undefined) state[key] = readable ? 'stored' : 'unreadable';
      else state[key] = this.#inEnvironment(SECRET_VARIABLES[key]) ? 'environment' : 'unset';
    }
    const secrets: SecretsReport = verdict.canStore
      ? { canStore: true, state }
      : { canStore: false, reason: verdict.reason, state };
    return { values: maskSecretsInValues(values, await this.#knownSecrets(stored, readable)), secrets, rejected };
  }

  /** Every secret this store or the environment holds (to mask them where they should not be). */
  async #knownSecrets(stored: Partial<Record<SecretKey, string>>, readable: boolean): Promise<string[]> {
    const known: string[] = [];
    for (const key of SECRET_KEYS) {
      const spec = (CONFIG_VARIABLES as readonly VariableSpec[]).find((s) => s.name === SECRET_VARIABLES[key]);
      for (const name of [SECRET_VARIABLES[key], ...(spec?.aliases ?? [])])
        if (this.#env[name]) known.push(this.#env[name]!);
      const cipherText = stored[key];
      if (readable && cipherText !== undefined && this.#vault)
        known.push(
          await this.#vault.decrypt(cipherText).then(
            (d) => d.value,
            () => '',
          ),
        );
    }
    return known;
  }

  async update(input: SettingsPatch): Promise<SettingsView> {
    const parsed = SettingsPatchSchema.safeParse(input);
    if (!parsed.success) throw invalid(parsed.error.issues);
    const patch = parsed.data;

    // Encrypt every new secret before writing anything, so a refusal leaves the file untouched.
    const secretWrites: Partial<Record<SecretKey, string | null>> = {};
    let backend: string | undefined;
    const entries = Object.entries(patch.secrets ?? {}) as [SecretKey, string | null][];
    if (entries.some(([, v]) => v !== null)) {
      const status = await this.#vault?.status();
      const verdict = secretStorageVerdict(status);
      if (!verdict.canStore) throw new SettingsError('secrets_unavailable', verdict.reason);
      backend = verdict.backend;
    }
    for (const [key, value] of entries) secretWrites[key] = value === null ? null : await this.#vault!.encrypt(value);

    if (patch.values) {
      const next: Record<string, unknown> = { ...this.#readValues().values };
      for (const [key, value] of Object.entries(patch.values)) {
        if (value === null) delete next[key];
        else if (value !== undefined) next[key] = value;
      }
      this.#backing.set(KEY_VALUES, next);
    }
    if (entries.length) {
      const ciphertexts: Record<string, string> = { ...this.#readCiphertexts() };
      for (const [key, value] of Object.entries(secretWrites)) {
        if (value === null) delete ciphertexts[key];
        else if (value !== undefined) ciphertexts[key] = value;
      }
      // A new backend makes older ciphertext unreadable: drop it rather than keep dead entries.
      if (backend !== undefined && this.#storedBackend() !== undefined && this.#storedBackend() !== backend) {
        for (const key of SECRET_KEYS) if (!(key in secretWrites)) delete ciphertexts[key];
      }
      this.#backing.set(KEY_SECRETS, ciphertexts);
      if (backend !== undefined) this.#backing.set(KEY_SECRET_BACKEND, backend);
      if (Object.keys(ciphertexts).length === 0) this.#backing.delete(KEY_SECRET_BACKEND);
    }
    return this.view();
  }

  async configValues(): Promise<Partial<Record<VariableName, string>>> {
    const { values } = this.#readValues();
    const secrets: Partial<Record<SecretKey, string>> = {};
    const stored = this.#readCiphertexts();
    const vault = this.#vault;
    if (vault && Object.keys(stored).length && canDecryptWith(this.#storedBackend(), await vault.status())) {
      const reEncrypted: Record<string, string> = { ...stored };
      let rotated = false;
      for (const key of SECRET_KEYS) {
        const cipherText = stored[key];
        if (cipherText === undefined) continue;
        const { value, shouldReEncrypt } = await vault.decrypt(cipherText);
        secrets[key] = value;
        if (shouldReEncrypt) {
          reEncrypted[key] = await vault.encrypt(value);
          rotated = true;
        }
      }
      if (rotated) this.#backing.set(KEY_SECRETS, reEncrypted);
    }
    return settingsToConfigValues(values, secrets);
  }

  desktopPrefs(): DesktopPrefs {
    const raw = this.#backing.get(KEY_DESKTOP);
    const parsed = DesktopPrefsSchema.safeParse(raw ?? {});
    return parsed.success ? parsed.data : DesktopPrefsSchema.parse({});
  }

  updateDesktopPrefs(patch: Partial<DesktopPrefs>): DesktopPrefs {
    const parsed = DesktopPrefsSchema.safeParse({ ...this.desktopPrefs(), ...patch });
    if (!parsed.success) throw invalid(parsed.error.issues);
    this.#backing.set(KEY_DESKTOP, parsed.data);
    return parsed.data;
  }

  #readValues(): { values: SettingsValues; rejected: string[] } {
    const result = parseStoredValues(this.#backing.get(KEY_VALUES));
    if (result.rejected.length) this.#onRejected?.(result.rejected);
    return result;
  }

  #readCiphertexts(): Partial<Record<SecretKey, string>> {
    const raw = this.#backing.get(KEY_SECRETS);
    const out: Partial<Record<SecretKey, string>> = {};
    if (raw === null || typeof raw !== 'object') return out;
    for (const key of SECRET_KEYS) {
      const value = (raw as Record<string, unknown>)[key];
      if (typeof value === 'string' && value.length > 0) out[key] = value;
    }
    return out;
  }

  #storedBackend(): string | undefined {
    const value = this.#backing.get(KEY_SECRET_BACKEND);
    return typeof value === 'string' ? value : undefined;
  }

  #inEnvironment(variable: VariableName): boolean {
    const spec = (CONFIG_VARIABLES as readonly VariableSpec[]).find((s) => s.name === variable);
    return [variable, ...(spec?.aliases ?? [])].some((name) => (this.#env[name] ?? '').trim() !== '');
  }
}
