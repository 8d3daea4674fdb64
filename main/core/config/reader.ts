// Typed reading of the values the loader found (sources.ts). A value that does not convert is not
// thrown: it becomes a problem naming its variable (and never echoing a secret), so one start reports
// every bad value at once; the reader answers undefined for it and the loader throws at the end.
import { homedir } from 'node:os';
import path from 'node:path';
import { isSecretKind, type VariableName, type VariableSpec } from './variables.ts';

export type Parsed<T> = { value: T } | { error: string };
export const ok = <T>(value: T): Parsed<T> => ({ value });
export const fail = (error: string): Parsed<never> => ({ error });

const SNOWFLAKE = /^\d{17,20}$/;
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

export class ValueReader {
  /** `NAME: what is wrong`, in the order the variables were read. */
  readonly problems: string[] = [];
  readonly #raw: ReadonlyMap<string, string>;
  readonly #specOf: ReadonlyMap<string, VariableSpec>;

  constructor(raw: ReadonlyMap<string, string>, variables: readonly VariableSpec[]) {
    this.#raw = raw;
    this.#specOf = new Map(variables.map((s) => [s.name, s]));
  }

  /** The raw text (a source's, or the default), unconverted. */
  get(name: VariableName): string | undefined {
    return this.#raw.get(name);
  }

  spec(name: VariableName): VariableSpec | undefined {
    return this.#specOf.get(name);
  }

  /** `convert`'s value, or undefined when unset or when it failed (then a problem is recorded). */
  parse<T>(name: VariableName, convert: (value: string, spec: VariableSpec) => Parsed<T>): T | undefined {
    const value = this.get(name);
    if (value === undefined) return undefined;
    const out = convert(value, this.#specOf.get(name)!);
    if ('error' in out) {
      this.problems.push(`${name}: ${out.error}`);
      return undefined;
    }
    return out.value;
  }

  string(name: VariableName): string | undefined {
    return this.parse(name, (v) => ok(v));
  }

  /** One of `choices`, compared trimmed and lower-cased; the value is returned as read, valid or not. */
  oneOf<T extends string>(name: VariableName, choices: readonly T[]): T {
    const word = this.string(name)!.trim().toLowerCase();
    if (!(choices as readonly string[]).includes(word))
      this.problems.push(`${name}: must be one of ${choices.join(', ')}, got ${quoted(word)}`);
    return word as T;
  }

  /** A path, `~` expanded, made absolute (not trimmed: a path may end in a space). */
  path(name: VariableName): string | undefined {
    const value = this.string(name);
    return value ? path.resolve(expandHome(value)) : undefined;
  }

  url(name: VariableName): string | undefined {
    return this.parse(name, (v, spec) => {
      try {
        const url = new URL(v);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('must be an http(s) URL');
        return ok(url.toString().replace(/\/$/, ''));
      } catch {
        return fail(
          isSecretKind(spec.kind) ? 'is not a valid URL (value hidden)' : `is not a valid URL: ${JSON.stringify(v)}`,
        );
      }
    });
  }

  /** OpenAI endpoints are WebSockets; compatible local servers are often plain ws://. */
  socketUrl(name: VariableName): string | undefined {
    return this.parse(name, (v) => {
      if (!URL.canParse(v) || !/^(?:https?|wss?):$/.test(new URL(v).protocol))
        return fail(`must be an http(s) or ws(s) URL, got ${JSON.stringify(v)}`);
      return ok(new URL(v).toString().replace(/\/$/, ''));
    });
  }

  number(name: VariableName, integer: boolean): number | undefined {
    return this.parse(name, (v, spec) => {
      const n = Number(v.trim());
      if (v.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)))
        return fail(`must be ${integer ? 'an integer' : 'a number'}, got ${quoted(v)}`);
      if (spec.min !== undefined && n < spec.min) return fail(`must be ≥ ${spec.min}, got ${n}`);
      if (spec.max !== undefined && n > spec.max) return fail(`must be ≤ ${spec.max}, got ${n}`);
      return ok(n);
    });
  }

  bool(name: VariableName): boolean | undefined {
    return this.parse(name, (v) => {
      const word = v.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return ok(true);
      if (FALSE_WORDS.has(word)) return ok(false);
      return fail(`must be true or false, got ${quoted(v)}`);
    });
  }

  list(name: VariableName): string[] | undefined {
    return this.parse(name, (v) => ok(splitList(v)));
  }

  snowflake(name: VariableName): string | undefined {
    return this.parse(name, (v) =>
      SNOWFLAKE.test(v.trim()) ? ok(v.trim()) : fail(`must be a Discord id (17–20 digits), got ${quoted(v)}`),
    );
  }

  snowflakeList(name: VariableName): string[] | undefined {
    return this.parse(name, (v) => {
      const ids = splitList(v);
      const bad = ids.filter((id) => !SNOWFLAKE.test(id));
      return bad.length ? fail(`must be comma-separated Discord ids; bad: ${bad.map(quoted).join(', ')}`) : ok(ids);
    });
  }
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(homedir(), p.slice(1)) : p;
}

/** A value quoted back in an error; a long one (likely pasted from elsewhere, maybe a token) is described, not shown. */
export function quoted(value: string): string {
  return value.length <= 32 ? JSON.stringify(value) : `a ${value.length}-character value (not shown)`;
}
