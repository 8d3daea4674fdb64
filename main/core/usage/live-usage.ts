// A call's model usage across its sessions (a park, an outage or a deadline opens a new one): the
// sessions' reports added up, each figure kept only when some session reported it.
import type { LiveModelUsage } from '../ports.ts';
import { addTokenUsage, emptyTokenUsage } from './tokens.ts';

export function sumLiveUsage(a: LiveModelUsage, b: LiveModelUsage | undefined): LiveModelUsage {
  if (!b) return a;
  const tokens = emptyTokenUsage();
  if (a.tokens) addTokenUsage(tokens, a.tokens);
  if (b.tokens) addTokenUsage(tokens, b.tokens);
  const sum: LiveModelUsage = { tokens };
  const audio = (a.audioSeconds ?? 0) + (b.audioSeconds ?? 0);
  const minutes = (a.billedMinutes ?? 0) + (b.billedMinutes ?? 0);
  const total = (a.totalTokens ?? 0) + (b.totalTokens ?? 0);
  if (audio > 0) sum.audioSeconds = audio;
  if (minutes > 0) sum.billedMinutes = minutes;
  if (total > 0) sum.totalTokens = total;
  return sum;
}
