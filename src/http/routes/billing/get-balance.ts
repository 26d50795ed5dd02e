import { Type } from 'typebox';
import { balanceView } from '../../../domain/billing/balance.ts';
import { requireTeam } from '../../../domain/accounts/teams.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';

const Money = Type.String({ description: '1/10000 USD' });

export default function getBalance(app: App, s: Services): void {
  app.get('/openapi/v1/billing/balance/detail', {
    config: { auth: { kind: 'key', capability: 'readBilling' } },
    schema: {
      tags: ['billing'], summary: 'Get user balance', security: KeyBearer,
      response: {
        200: Type.Object({
          availableBalance: Money, cashBalance: Money, creditLimit: Money, pendingCharges: Money, outstandingInvoices: Money,
        }),
        ...errors(401, 403),
      },
    },
  }, async (req) => {
    const p = principalOf(req);
    const team = await requireTeam(s.ctx, p.teamId);
    return balanceView(team, await s.reservations.reservedMicro(p.teamId));
  });
}
