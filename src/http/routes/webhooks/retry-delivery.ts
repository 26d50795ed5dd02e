import { retryDelivery } from '../../../domain/webhooks/deliveries.ts';
import { deliveryView } from '../../../domain/webhooks/view.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { DeliveryParams, DeliveryView, TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function retryDeliveryRoute(app: App, s: { webhooks: Webhooks }): void {
  app.post(`${WEBHOOK_BASE}/endpoints/:id/deliveries/:deliveryId/retry`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: 'Send an ended delivery again now (same id and body, a full schedule of retries)', security: KeyBearer,
      params: DeliveryParams,
      response: { 200: DeliveryView, ...errors(401, 403, 404, 409, 429) },
    },
  }, async (req) => deliveryView(await retryDelivery(s.webhooks, principalOf(req).teamId, req.params.id, req.params.deliveryId)));
}
