// Types for core-build.mjs (plain JavaScript so that it runs before anything is compiled).
/** A hash of every source and compiler-setting file dist/ is compiled from. */
export function sourceHash(): string;
/** True when dist/ was compiled from exactly the sources now in main/, renderer/ and preload/. */
export function builtIsCurrent(): boolean;
/** Compiles the sources into dist/ when it is not current; false (tsc's output printed) when that fails. */
export function ensureBuilt(say?: (line: string) => void): boolean;
