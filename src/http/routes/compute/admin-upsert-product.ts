import { Type } from 'typebox';
import { upsertProduct } from '../../../domain/compute/catalogue.ts';
import { BILLING_MODES } from '../../../domain/compute/states.ts';
import { errors, Int32, OperatorBearer, PriceInput } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';


export default function gpuUpsertProductRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/gpu/products', {
    // an operator writes this JSON by hand: refused with every problem at once, not one per try
    config: { family: 'operator', auth: { kind: 'operator' }, allProblems: true },
    schema: {
      tags: ['admin'], summary: 'Create or replace a GPU product (prices in units: per GPU-hour, monthly per GPU-month)', security: OperatorBearer,
      body: Type.Object({
        id: Type.String({ pattern: '^[\\w.-]{1,64}$', description: '1-64 letters, digits, ., _ or -' }), name: Type.String({ minLength: 1, maxLength: 255 }), gpuModel: Type.String({ minLength: 1 }),
        cpuPerGpu: Int32({ minimum: 1 }), memoryPerGpu: Int32({ minimum: 1 }), diskPerGpu: Int32({ minimum: 0 }),
        minRootfs: Type.Optional(Int32({ minimum: 1 })), maxRootfs: Type.Optional(Int32({ minimum: 1 })),
        price: PriceInput, spotPrice: PriceInput, monthlyPrice: PriceInput,
        billingMethods: Type.Array(Type.Unsafe<string>({ type: 'string', enum: [...BILLING_MODES] }), { minItems: 1 }),
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
