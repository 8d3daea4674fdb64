// Layering is enforced here, not by convention: core runs in plain Node, the renderer is a web page.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';
import { CORE_FLOORS } from './scripts/lib/core-floors.ts';

// main/core's floors (scripts/lib/core-floors.ts) as boundaries file categories: one per folder or
// root file, each allowed to import itself and everything on the floors below. Type-only imports count.
const coreCategory = (entry) => `floor ${CORE_FLOORS.findIndex((floor) => floor.includes(entry))} ${entry}`;
const coreFiles = CORE_FLOORS.flat().map((entry) => ({
  category: coreCategory(entry),
  pattern: entry.endsWith('.ts') ? `main/core/${entry}` : `main/core/${entry}/**`,
}));
const floorPolicies = CORE_FLOORS.flatMap((floor, index) =>
  floor.map((entry) => ({
    from: { file: { categories: coreCategory(entry) } },
    allow: {
      to: {
        file: { categories: { anyOf: [coreCategory(entry), ...CORE_FLOORS.slice(0, index).flat().map(coreCategory)] } },
      },
    },
  })),
);

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'out/**',
      'release/**',
      'test/fixtures/**',
      'test-results/**',
      '.tools/**',
      'playwright-report/**',
      '.bench-release/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        Buffer: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['main/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'main/core runs in plain Node: Electron APIs belong in main/app.' },
            { name: 'electron-store', message: 'electron-store imports electron; core uses conf or plain files.' },
          ],
          patterns: [
            { group: ['**/app/**', '**/main/app/**'], message: 'main/core must not depend on the Electron shell.' },
            {
              group: ['**/fakes/**', '**/demo/**'],
              message: 'main/core must not depend on the fakes or the demo that runs on them.',
            },
            {
              group: ['**/main/cli/**', '**/main/cli.ts', '../cli/**', '../cli.ts', '../../cli/**', '../../cli.ts'],
              message: 'main/core must not depend on the CLI: the CLI sits on top of the core.',
            },
            {
              group: ['**/renderer/**', '**/bench/**', '**/scripts/**', '**/preload/**'],
              message:
                'main/core must not depend on the dashboard, the benchmarks, the repository scripts or the preload.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['main/core/**/*.ts'],
    plugins: { boundaries },
    settings: { 'boundaries/files': coreFiles, 'import/resolver': { node: { extensions: ['.ts', '.js'] } } },
    rules: {
      // A folder imports only from the floors below it; a file in main/core that no floor names is an error too.
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: floorPolicies,
          message:
            '{{from.file.categories}} may not import {{to.file.categories}} ({{dependency.source}}): main/core imports only down its floors, type-only imports too (scripts/lib/core-floors.ts)',
        },
      ],
      'boundaries/no-unknown-files': 'error',
    },
  },
  {
    // The shells sit side by side above the core: the demo and the CLI commands share what they both
    // need through main/core, never through each other (main/cli.ts, the entry, may start either).
    files: ['main/demo/**/*.ts', 'main/fakes/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/cli/**', '**/cli.ts', '**/app/**'],
              message:
                'The demo and the fakes do not import the CLI or the Electron shell: move what both need into main/core.',
            },
          ],
        },
      ],
    },
  },
  {
    // The Electron shell ships in the installer; the fakes and the demo do not.
    files: ['main/app/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/fakes/**', '**/demo/**'],
              message:
                'The Electron shell does not import the fakes or the demo: they are never shipped in the installer.',
            },
          ],
        },
      ],
    },
  },
  {
    // The preload runs in the page's process with Electron's preload API only: it shares its contract
    // with the shell through preload/, never by importing main/.
    files: ['preload/**/*.ts', 'preload/**/*.cts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/main/**', '../main/**'],
              message: 'The preload imports nothing from main/: its contract lives in preload/desktop-api.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['main/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/demo/**', '**/fakes/**', '**/app/**'],
              message: 'The CLI commands do not import the demo, the fakes or the Electron shell.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.js'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        EventSource: 'readonly',
        HTMLElement: 'readonly',
        location: 'readonly',
        FormData: 'readonly',
        Blob: 'readonly',
        File: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            // Wire types come from one place: api-types.ts or the client's wire-types.ts (type-only),
            // never a route module. (A pattern with allowTypeImports lets every type import it matches
            // through, so the type-only one matches those two files alone.)
            {
              regex: '^(\\.\\./)+main/(?!core/api-types\\.ts$|core/sidecar-client/wire-types\\.ts$)',
              message:
                'The dashboard talks to the core only through the sidecar API; it takes wire types (`import type`) from main/core/api-types.ts or main/core/sidecar-client/wire-types.ts only.',
            },
            {
              regex: '^(\\.\\./)+(main/core/api-types\\.ts|main/core/sidecar-client/wire-types\\.ts|preload/)',
              message: 'The dashboard talks to the core only through the sidecar API; share types with `import type`.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // Function length in product code: main/ but its fakes, the dashboard (renderer/) and the preload.
    // A function of more than 80 lines does not fit on one screen and is read in pieces anyway; split,
    // its pieces get names. Blank lines and comments are not counted: the limit is on code, and it
    // must never be met by deleting the comments that say why. Tests, benchmarks, repository scripts and
    // the fakes are not product code and are not limited: a test's table of cases or a fake's scripted
    // server reads best whole, and none of them ships.
    files: ['main/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.js', 'preload/**/*.ts', 'preload/**/*.cts'],
    ignores: ['main/fakes/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
);
