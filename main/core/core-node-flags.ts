// The start-up options the core's Node process is launched with: only options Node documents and
// allows in NODE_OPTIONS (doc/api/cli.md, "Useful V8 options" and the NODE_OPTIONS list), given on
// the command line of the process (package.json's `headless`/`demo`, scripts/demo.sh, the installed
// command bin/live-voice-bridge.js (plain JS: its own copy of the list); `npm start`: Electron's
// --js-flags, the only way into the main process's V8), never set at run time.
//   --max-semi-space-size=1: caps the young generation at 3 × 1 MiB. Module loading grows it to its
//     default maximum (16 MiB semi-spaces on 64-bit) and an idle process never shrinks it back.
// Chosen from bench/results/idle-memory.json (one run, every documented option; docs/performance.md,
// "Memory without internals"). --expose-gc is not in the list: the idle trim it enables
// (idle-memory-trim.ts) gave back ~5 MB at idle and nothing a minute after a burst of requests.
// test/unit/core-node-flags.test.ts checks that every launcher passes exactly these.
export const CORE_NODE_FLAGS = ['--max-semi-space-size=1'] as const;
