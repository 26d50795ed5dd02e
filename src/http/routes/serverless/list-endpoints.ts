import { Type } from 'typebox';
import { listEndpoints } from '../../../domain/serverless/endpoints.ts';
import { endpointListView } from '../../../domain/serverless/view.ts';
import { MAX_PAGE_NUM, MAX_PAGE_SIZE } from '../../../domain/compute/templates.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from '../compute/schemas.ts';
import { EndpointListView } from './schemas.ts';
import type { Serverless } from '../../../domain/serverless/service.ts';

export default function listEndpointsRoute(app: App, s: { serverless: Serverless }): void {
  app.get(`${GPU_BASE}/endpoints`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['serverless'], summary: 'List serverless endpoints (newest first; ports[].port is a string here)', security: KeyBearer,
      querystring: Type.Object({
        pageSize: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_SIZE, description: 'missing or 0 reads as 10' })),
        pageNum: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_NUM, description: '1-based; missing or 0 reads as 1' })),
        pageNumber: Type.Optional(Int32({ minimum: 0, description: 'alias of pageNum (its range)' })),
      }),
      response: { 200: Type.Object({ endpoints: Type.Array(EndpointListView), total: Type.Integer() }), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const qs = req.query;
    const r = await listEndpoints(s.serverless, principalOf(req).teamId, { pageSize: qs.pageSize, pageNum: qs.pageNum ?? qs.pageNumber });
    return { endpoints: r.rows.map((row) => endpointListView(s.serverless.settings, row, r.workers)), total: r.total };
  });
}
