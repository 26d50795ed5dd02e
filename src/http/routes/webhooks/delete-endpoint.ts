import { deleteEndpoint } from '../../../domain/webhooks/endpoints.ts';
import { Empty, errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { EndpointParams, TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function deleteEndpointRoute(app: App, s: { webhooks: Webhooks }): void {
  app.delete(`${WEBHOOK_BASE}/endpoints/:id`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: 'Delete a webhook endpoint and its delivery log', security: KeyBearer,
      params: EndpointParams,
      response: { 200: Empty, ...errors(401, 403, 404) },
    },
  }, async (req) => {
    await deleteEndpoint(s.webhooks, principalOf(req).teamId, req.params.id);
    return {};
  });
}
