// SecretVault over Electron safeStorage (async API: Keychain, DPAPI, libsecret/kwallet). Whether a
// backend is good enough is decided by the core's secret policy, not here.
import { safeStorage } from 'electron';
import type { SecretVault } from '../core/settings/secret-policy.ts';

export function createSafeStorageVault(): SecretVault {
  return {
    async status() {
      const available = await safeStorage.isAsyncEncryptionAvailable();
      const backend = process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : 'os';
      return { available, backend };
    },
    async encrypt(plainText) {
      return (await safeStorage.encryptStringAsync(plainText)).toString('base64');
    },
    async decrypt(cipherText) {
      const { result, shouldReEncrypt } = await safeStorage.decryptStringAsync(Buffer.from(cipherText, 'base64'));
      return { value: result, shouldReEncrypt };
    },
  };
}
