// The `webhook` mode: the agent.notify event POSTed to the configured receiver (webhook.ts throttles,
// retries and keys it); the caller's hooks become the dispatcher's beforeSend and notAccepted.
import type { DeliveryOutcome } from '../api-types.ts';
import { cleanTitle } from './format.ts';
import type { SendMode } from './sending.ts';
import { errorMessage } from './types.ts';
import { AGENT_NOTIFY, type WebhookDispatcher } from './webhook.ts';

export function webhookMode(webhook: WebhookDispatcher): SendMode {
  return (req, options) => {
    if (!webhook.configured) return Promise.resolve({ status: 'skipped', detail: 'no webhook URL configured' });
    return webhook
      .emit(
        {
          eventClass: AGENT_NOTIFY,
          subEvent: options.subEvent ?? 'agent_notification',
          title: cleanTitle(req.title),
          text: req.text,
          source: req.source,
          urgent: req.urgent,
          id: options.id,
        },
        {
          ...(options.onSending ? { beforeSend: () => options.onSending!('webhook') } : {}),
          ...(options.onNotAccepted
            ? {
                notAccepted: (retryAtMs: number | null, detail: string) =>
                  options.onNotAccepted!('webhook', retryAtMs, detail),
              }
            : {}),
        },
      )
      .catch((err: unknown) => ({ status: 'error', detail: errorMessage(err) }) as DeliveryOutcome);
  };
}
