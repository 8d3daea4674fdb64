#!/usr/bin/env node
// Runs the compiled CLI when built (installed packages), else the TypeScript source directly
// (a checkout on Node >= 22.18, whose type stripping needs no build step).
import { existsSync } from 'node:fs';

const built = new URL('../dist/main/cli.js', import.meta.url);
await import(existsSync(built) ? built.href : new URL('../main/cli.ts', import.meta.url).href);
