import { Type } from 'typebox';
import { availability } from '../../../domain/compute/catalogue.ts';
import { listClusters, listProducts } from '../../../store/compute.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';

export default function gpuGetCatalogueRoute(app: App, s: Services): void {
  app.get('/admin/v1/gpu/catalogue', {
    config: { auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Clusters, products (with prices) and inventory with GPUs in use', security: OperatorBearer,
      response: { 200: Type.Object({}, { additionalProperties: true }), ...errors(401) },
    },
  }, async () => {
    const [clusters, products, inventory] = await Promise.all([listClusters(s.ctx.db), listProducts(s.ctx.db), availability(s.ctx)]);
    return {
      clusters: clusters.map((c) => ({ id: c.id, name: c.name, region: c.region, supportNetworkStorage: c.supportNetworkStorage, supportInstanceNetwork: c.supportInstanceNetwork })),
      products: products.map((p) => ({
        id: p.id, name: p.name, gpuModel: p.gpuModel, cpuPerGpu: p.cpuPerGpu, memoryPerGpu: p.memoryPerGpuGb, diskPerGpu: p.diskPerGpuGb,
        minRootfs: p.minRootfsGb, maxRootfs: p.maxRootfsGb, price: p.priceUnitsPerGpuHour.toString(), spotPrice: p.spotPriceUnitsPerGpuHour.toString(),
        monthlyPrice: p.monthlyPriceUnitsPerGpu.toString(), billingMethods: p.billingMethods, nodeSelector: p.nodeSelector, available: p.available,
      })),
      inventory,
    };
  });
}
