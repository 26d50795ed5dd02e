import { Type } from 'typebox';
import { listTopups } from '../../../domain/payments/topups.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { PAYMENTS_BASE, TAGS, TopupView } from './schemas.ts';
import type { Payments } from '../../../domain/payments/payments.ts';

export default function listTopupsRoute(app: App, s: { payments: Payments }): void {
  app.get(`${PAYMENTS_BASE}/topups`, {
    config: { family: 'account', auth: { kind: 'key', capability: 'readBilling' } },
    schema: {
      tags: TAGS, security: KeyBearer,
      summary: 'The team\'s card top-ups, newest first (the last 100), each with Stripe\'s receipt once credited',
      response: { 200: Type.Object({ topups: Type.Array(TopupView) }), ...errors(401, 403, 404) },
    },
  }, async (req) => ({ topups: await listTopups(s.payments, principalOf(req)) }));
}
