import { Type } from 'typebox';
import { clusterNames, listInstances } from '../../../domain/compute/instances.ts';
import { instanceView } from '../../../domain/compute/instance-view.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { MAX_PAGE_NUM, MAX_PAGE_SIZE } from '../../../domain/compute/templates.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE, InstanceView } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function listInstancesRoute(app: App, s: { compute: Compute }): void {
  app.get(`${GPU_BASE}/gpu/instances`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-instances'], summary: 'List instances (newest first; fuzzy name and productName; exact status)', security: KeyBearer,
      querystring: Type.Object({
        pageSize: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_SIZE, description: 'missing or 0 reads as 10' })),
        pageNum: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_NUM, description: '1-based; missing or 0 reads as 1' })),
        pageNumber: Type.Optional(Int32({ minimum: 0, description: 'alias of pageNum (its range)' })),
        name: Type.Optional(Type.String()),
        productName: Type.Optional(Type.String()),
        status: Type.Optional(Type.String()),
      }),
      response: { 200: Type.Object({ instances: Type.Array(InstanceView), total: Type.Integer() }), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const qs = req.query;
    const [r, names] = await Promise.all([
      listInstances(s.compute, principalOf(req).teamId, { pageSize: qs.pageSize, pageNum: qs.pageNum ?? qs.pageNumber, name: qs.name, productName: qs.productName, status: qs.status }),
      clusterNames(s.compute),
    ]);
    return { instances: r.rows.map((row) => instanceView(row, names.get(row.clusterId))), total: r.total };
  });
}
