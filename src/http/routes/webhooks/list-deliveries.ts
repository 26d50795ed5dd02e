import { Type } from 'typebox';
import { listDeliveries } from '../../../domain/webhooks/deliveries.ts';
import { deliveryView } from '../../../domain/webhooks/view.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { DeliveryView, EndpointParams, Paging, TAGS, WEBHOOK_BASE } from './schemas.ts';
import type { Webhooks } from '../../../domain/webhooks/service.ts';

export default function listDeliveriesRoute(app: App, s: { webhooks: Webhooks }): void {
  app.get(`${WEBHOOK_BASE}/endpoints/:id/deliveries`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageWebhooks' } },
    schema: {
      tags: TAGS, summary: "An endpoint's delivery log, newest first: attempts, last status code and latency, next try", security: KeyBearer,
      params: EndpointParams, querystring: Paging,
      response: { 200: Type.Object({ deliveries: Type.Array(DeliveryView), total: Type.Integer() }), ...errors(400, 401, 403, 404) },
    },
  }, async (req) => {
    const r = await listDeliveries(s.webhooks, principalOf(req).teamId, req.params.id, { pageSize: req.query.pageSize, pageNum: req.query.pageNum ?? req.query.pageNumber });
    return { deliveries: r.rows.map(deliveryView), total: r.total };
  });
}
