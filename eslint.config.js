// Layering is enforced here, not by convention: core runs in plain Node, the renderer is a web page.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', 'release/**', 'test/fixtures/**', 'test-results/**', '.tools/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly', performance: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['main/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [
          { name: 'electron', message: 'main/core runs in plain Node: Electron APIs belong in main/app.' },
          { name: 'electron-store', message: 'electron-store imports electron; core uses conf or plain files.' },
        ],
        patterns: [
          { group: ['**/app/**', '**/main/app/**'], message: 'main/core must not depend on the Electron shell.' },
          { group: ['**/fakes/**', '**/demo/**'], message: 'main/core must not depend on the fakes or the demo that runs on them.' },
        ],
      }],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', EventSource: 'readonly', HTMLElement: 'readonly', location: 'readonly', FormData: 'readonly', Blob: 'readonly', File: 'readonly' } },
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['**/main/**', '**/preload/**'], message: 'The dashboard talks to the core only through the sidecar API; share types with `import type`.', allowTypeImports: true }],
      }],
    },
  },
);
