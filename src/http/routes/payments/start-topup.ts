import { Type } from 'typebox';
import { startTopup } from '../../../domain/payments/topups.ts';
import { MAX_AMOUNT_UNITS } from '../../../lib/money.ts';
import { parseUInt64 } from '../../../lib/int64.ts';
import { errors, KeyBearer, UnitsInput } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { PAYMENTS_BASE, TAGS, TopupView } from './schemas.ts';
import type { Payments } from '../../../domain/payments/payments.ts';

export default function startTopupRoute(app: App, s: { payments: Payments }): void {
  app.post(`${PAYMENTS_BASE}/topups`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'topUp' } },
    schema: {
      tags: TAGS, security: KeyBearer,
      summary: 'Start a card top-up (Owner, Billing): a Stripe Checkout page to pay at; the balance grows when Stripe says it was paid',
      body: Type.Object({ amount: UnitsInput }),
      response: { 200: TopupView, ...errors(400, 401, 403, 404, 503) },
    },
  }, async (req) => startTopup(s.payments, principalOf(req), { amountUnits: parseUInt64(req.body.amount, 'amount', MAX_AMOUNT_UNITS) }));
}
