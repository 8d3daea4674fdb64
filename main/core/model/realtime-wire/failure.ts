// How the OpenAI speech endpoints (Realtime, GPT-Live) say why a socket could not open: HTTP status
// or close code and the error text → what the shared fallback loop does next.
import type { ConnectFailure } from '../wire/connect-failure.ts';
import type { FailureKind } from '../session-core/fallback.ts';

export function classifyOpenAIFailure(failure: Pick<ConnectFailure, 'code' | 'reason'>): FailureKind {
  const { code } = failure;
  const text = failure.reason.toLowerCase();
  if (code === 401 || code === 403 || /invalid_api_key|incorrect api key|unauthori[sz]ed|authentication/.test(text))
    return 'auth';
  if (code === 404 || /model_not_found|invalid_model|does not exist|unknown model/.test(text)) return 'model';
  if (/invalid_value|unknown_parameter|invalid_type|missing_required_parameter|invalid_session/.test(text))
    return 'config';
  return 'transient';
}
