import { Type } from 'typebox';
import { createEndpoint } from '../../../domain/webhooks/endpoints.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { EndpointCreate, TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function createEndpointRoute(app: App, s: { webhooks: Webhooks }): void {
  app.post(`${WEBHOOK_BASE}/endpoints`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: 'Create a webhook endpoint: a URL and the events it receives', security: KeyBearer,
      body: EndpointCreate,
      response: { 200: Type.Object({ id: Type.String() }), ...errors(400, 401, 403, 409) },
    },
  }, async (req) => ({ id: await createEndpoint(s.webhooks, principalOf(req).teamId, req.body) }));
}
