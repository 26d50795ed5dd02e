import { Type } from 'typebox';
import { getBalance } from '../../../domain/billing/balance.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';
import type { SpendAdmission } from '../../../domain/spend/admission.ts';

const Money = Type.String({ description: '1/10000 USD' });

export default function getBalanceRoute(app: App, s: { ctx: Ctx; spend: SpendAdmission }): void {
  app.get('/openapi/v1/billing/balance/detail', {
    config: { family: 'billing', auth: { kind: 'key', capability: 'readBilling' } },
    schema: {
      tags: ['billing'], summary: 'Get user balance', security: KeyBearer,
      response: {
        200: Type.Object({
          availableBalance: Money, cashBalance: Money, creditLimit: Money, pendingCharges: Money, outstandingInvoices: Money,
          voucherBalance: Type.String({ description: '1/10000 USD of vouchers left (Gantry extension): availableBalance = voucherBalance + cashBalance + creditLimit - outstandingInvoices - pendingCharges, each rounded' }),
        }),
        ...errors(401, 403),
      },
    },
  }, async (req) => getBalance(s.ctx, s.spend, principalOf(req).teamId));
}
