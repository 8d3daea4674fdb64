// Where each variable's raw text comes from: the first source that sets it (highest precedence
// first), else its default. Kept apart from the typed reading (reader.ts) so the precedence rule is
// stated once and the loader's problems can name the file a bad value came from.
import type { VariableName, VariableSpec } from './variables.ts';
import type { VariableOrigin } from './shape.ts';

/** One place values are read from, under the label a problem names it by (a file, or `environment`). */
export type Source = { label: string; values: Record<string, string | undefined> };

export interface FoundValues {
  /** Every variable with a value: the one a source set, else its default. */
  raw: Map<string, string>;
  /** Where each value that is not from the environment came from (a file), for the problems. */
  setIn: Map<string, string>;
  /** Which source and which spelling (name or alias) set each variable a source set. */
  origins: Partial<Record<VariableName, VariableOrigin>>;
}

export function findValues(variables: readonly VariableSpec[], sources: readonly Source[]): FoundValues {
  const found: FoundValues = { raw: new Map(), setIn: new Map(), origins: {} };
  for (const spec of variables) {
    const hit = lookup(spec, sources);
    if (hit !== undefined) {
      found.raw.set(spec.name, hit.value);
      found.origins[spec.name] = { source: hit.source, name: hit.name };
      if (hit.source !== 'environment') found.setIn.set(spec.name, hit.source);
    } else if (spec.default !== undefined) found.raw.set(spec.name, spec.default);
  }
  return found;
}

function lookup(
  spec: VariableSpec,
  sources: readonly Source[],
): { value: string; source: string; name: string } | undefined {
  for (const source of sources) {
    for (const name of [spec.name, ...(spec.aliases ?? [])]) {
      const value = source.values[name];
      // An empty variable means "unset", as shells commonly export empty placeholders.
      if (value !== undefined && value.trim() !== '') return { value, source: source.label, name };
    }
  }
  return undefined;
}
