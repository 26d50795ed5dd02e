import { getEndpoint } from '../../../domain/webhooks/endpoints.ts';
import { endpointView } from '../../../domain/webhooks/view.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { EndpointParams, EndpointView, TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function getEndpointRoute(app: App, s: { webhooks: Webhooks }): void {
  app.get(`${WEBHOOK_BASE}/endpoints/:id`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: 'A webhook endpoint (a disabled one says why)', security: KeyBearer,
      params: EndpointParams,
      response: { 200: EndpointView, ...errors(401, 403, 404) },
    },
  }, async (req) => endpointView(await getEndpoint(s.webhooks, principalOf(req).teamId, req.params.id)));
}
