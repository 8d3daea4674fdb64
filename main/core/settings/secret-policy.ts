// When may a secret be written to disk? Only encrypted by the OS secret store (macOS Keychain,
// Windows DPAPI, Linux libsecret/kwallet). Electron's Linux fallback `basic_text` encrypts with a
// hard-coded password, which is plain text with extra steps, so it counts as "no encryption".
// Headless mode has no OS secret store at all: secrets come from the environment or `.env` there.

/** What the secret store of this process can do, as reported by the shell. */
export interface VaultStatus {
  available: boolean;
  /** Linux backend name from safeStorage (`gnome_libsecret`, `kwallet5`, `basic_text`, ...); `os` elsewhere. */
  backend: string;
}

/** Encrypts secrets with the OS secret store. The Electron shell implements it with safeStorage. */
export interface SecretVault {
  status(): Promise<VaultStatus>;
  /** Ciphertext as base64, safe to keep in a JSON settings file. */
  encrypt(plainText: string): Promise<string>;
  /** `shouldReEncrypt`: the OS rotated its key; write the value back encrypted with the new one. */
  decrypt(cipherText: string): Promise<{ value: string; shouldReEncrypt: boolean }>;
}

export type SecretStorageVerdict = { canStore: true; backend: string } | { canStore: false; reason: string };

/** Linux backends that really encrypt with a key the OS keeps for the user. */
const PLAIN_TEXT_BACKENDS = new Set(['basic_text', 'unknown']);

const ENV_HINT =
  'set DISCORD_BOT_TOKEN, GEMINI_API_KEY or DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY in the environment (or .env) instead';

export function secretStorageVerdict(status: VaultStatus | undefined): SecretStorageVerdict {
  if (!status)
    return {
      canStore: false,
      reason: `headless mode has no OS secret store, and secrets are never written in plain text; ${ENV_HINT}`,
    };
  if (!status.available)
    return {
      canStore: false,
      reason: `the OS secret store (keychain) is not available, and secrets are never written in plain text; ${ENV_HINT}`,
    };
  if (PLAIN_TEXT_BACKENDS.has(status.backend)) {
    return {
      canStore: false,
      reason: `no keyring (libsecret or kwallet) was found, so Electron would keep secrets as plain text ("${status.backend}"); refusing. Install and unlock a keyring, or ${ENV_HINT}`,
    };
  }
  return { canStore: true, backend: status.backend };
}

/**
 * A stored secret can be decrypted only by the backend that wrote it: on Linux, switching from
 * kwallet to libsecret (a new desktop session) makes old ciphertext unreadable rather than wrong.
 */
export function canDecryptWith(storedBackend: string | undefined, current: VaultStatus | undefined): boolean {
  const verdict = secretStorageVerdict(current);
  return verdict.canStore && (storedBackend === undefined || storedBackend === verdict.backend);
}
