import { sendTestDelivery } from '../../../domain/webhooks/deliveries.ts';
import { deliveryView } from '../../../domain/webhooks/view.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { DeliveryView, EndpointParams, TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function testEndpointRoute(app: App, s: { webhooks: Webhooks }): void {
  app.post(`${WEBHOOK_BASE}/endpoints/:id/test`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: 'Send the event webhook.test to this endpoint now (signed and retried like any delivery; in its log)', security: KeyBearer,
      params: EndpointParams,
      response: { 200: DeliveryView, ...errors(401, 403, 404, 409, 429) },
    },
  }, async (req) => deliveryView(await sendTestDelivery(s.webhooks, principalOf(req).teamId, req.params.id)));
}
