import { Type } from 'typebox';
import { upsertProduct } from '../../../domain/compute/catalogue.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';

const Units = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]+$' })]);

export default function gpuUpsertProductRoute(app: App, s: Services): void {
  app.post('/admin/v1/gpu/products', {
    config: { auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Create or replace a GPU product (prices in units: per GPU-hour, monthly per GPU-month)', security: OperatorBearer,
      body: Type.Object({
        id: Type.String(), name: Type.String({ minLength: 1, maxLength: 255 }), gpuModel: Type.String({ minLength: 1 }),
        cpuPerGpu: Type.Integer({ minimum: 1 }), memoryPerGpu: Type.Integer({ minimum: 1 }), diskPerGpu: Type.Integer({ minimum: 0 }),
        minRootfs: Type.Optional(Type.Integer({ minimum: 1 })), maxRootfs: Type.Optional(Type.Integer({ minimum: 1 })),
        price: Units, spotPrice: Units, monthlyPrice: Units,
        billingMethods: Type.Array(Type.String()),
        nodeSelector: Type.Optional(Type.Record(Type.String(), Type.String())),
        available: Type.Optional(Type.Boolean()),
      }),
      response: { 200: Type.Object({ id: Type.String() }), ...errors(400, 401) },
    },
  }, async (req) => {
    const b = req.body;
    await upsertProduct(s.ctx, { ...b, price: BigInt(b.price), spotPrice: BigInt(b.spotPrice), monthlyPrice: BigInt(b.monthlyPrice) });
    return { id: b.id };
  });
}
