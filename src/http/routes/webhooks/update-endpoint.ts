import { updateEndpoint } from '../../../domain/webhooks/endpoints.ts';
import { endpointView } from '../../../domain/webhooks/view.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { EndpointParams, EndpointUpdate, EndpointView, TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function updateEndpointRoute(app: App, s: { webhooks: Webhooks }): void {
  app.patch(`${WEBHOOK_BASE}/endpoints/:id`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: 'Update a webhook endpoint (the fields given); enable or disable it', security: KeyBearer,
      params: EndpointParams, body: EndpointUpdate,
      response: { 200: EndpointView, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => endpointView(await updateEndpoint(s.webhooks, principalOf(req).teamId, req.params.id, req.body)));
}
