import { getEndpoint } from '../../../domain/webhooks/endpoints.ts';
import { endpointView } from '../../../domain/webhooks/view.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { EndpointParams, EndpointView, TAGS, WEBHOOK_BASE } from './schemas.ts';

export default function getEndpointRoute(app: App, s: Pick<Services, 'webhooks'>): void {
  app.get(`${WEBHOOK_BASE}/endpoints/:id`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: 'A webhook endpoint (a disabled one says why)', security: KeyBearer,
      params: EndpointParams,
      response: { 200: EndpointView, ...errors(401, 403, 404) },
    },
  }, async (req) => endpointView(await getEndpoint(s.webhooks, principalOf(req).teamId, req.params.id)));
}
