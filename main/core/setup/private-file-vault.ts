// Headless secrets: with no OS keychain (a server, a container, a plain terminal), secrets typed on
// the setup page are kept the way CLI tools without a keychain keep theirs (gh's hosts.yml, the AWS
// and gcloud credential files): in the settings file, readable by this user only (0600, in a 0700
// folder). Not encryption: the file's permissions are the protection, and the docs say so.
import type { SecretVault } from '../settings/secret-policy.ts';

/** The backend name shown on the settings page and stored beside the secrets. */
export const PRIVATE_FILE_BACKEND = 'private-file';

export function privateFileVault(): SecretVault {
  return {
    status: async () => ({ available: true, backend: PRIVATE_FILE_BACKEND }),
    encrypt: async (plainText) => plainText,
    decrypt: async (stored) => ({ value: stored, shouldReEncrypt: false }),
  };
}
