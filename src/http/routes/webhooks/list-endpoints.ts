import { Type } from 'typebox';
import { listEndpoints } from '../../../domain/webhooks/endpoints.ts';
import { endpointView } from '../../../domain/webhooks/view.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { EndpointView, Paging, TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function listEndpointsRoute(app: App, s: { webhooks: Webhooks }): void {
  app.get(`${WEBHOOK_BASE}/endpoints`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: "The team's webhook endpoints, newest first", security: KeyBearer,
      querystring: Paging,
      response: { 200: Type.Object({ endpoints: Type.Array(EndpointView), total: Type.Integer() }), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const r = await listEndpoints(s.webhooks, principalOf(req).teamId, { pageSize: req.query.pageSize, pageNum: req.query.pageNum ?? req.query.pageNumber });
    return { endpoints: r.rows.map(endpointView), total: r.total };
  });
}
