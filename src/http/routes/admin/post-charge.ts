import { Type } from 'typebox';
import { MAX_BILLING_METHOD, MIN_BILLING_METHOD } from '../../../domain/billing/codes.ts';
import { post } from '../../../domain/billing/ledger.ts';
import { USAGE_CATEGORIES } from '../../../domain/billing/bills.ts';
import { requireMember } from '../../../domain/accounts/members.ts';
import { requireKey } from '../../../domain/keys/keys.ts';
import { MAX_AMOUNT_UNITS, unitsToMicro } from '../../../lib/money.ts';
import { parseUInt64 } from '../../../lib/int64.ts';
import { invalid } from '../../../lib/errors.ts';
import { errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { Amount, IdempotencyKey, Posted } from './team-schema.ts';
import { postedView } from './posted-view.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function postChargeRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/teams/:userId/charges', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Post a usage charge to the ledger (external usage, adjustments)', security: OperatorBearer,
      params: UserIdParams,
      body: Type.Object({
        amount: Amount,
        // the categories the usage-bill queries filter on ('summary' is a query, not a category)
        category: Type.String({ enum: USAGE_CATEGORIES.filter((c) => c !== 'summary') }),
        billingMethod: Type.Integer({ minimum: MIN_BILLING_METHOD, maximum: MAX_BILLING_METHOD }),
        productId: Type.String({ maxLength: 255 }),
        productName: Type.String({ maxLength: 255 }),
        ownerId: Type.Optional(Type.String({ maxLength: 255 })),
        memberId: Type.Optional(Type.String()),
        keyId: Type.Optional(Type.String()),
        idempotencyKey: IdempotencyKey,
      }),
      response: { 200: Posted, ...errors(400, 401, 404, 409) },
    },
  }, async (req) => {
    const b = req.body;
    const teamId = req.params.userId;
    // Attribution must point inside the team, or budgets would count foreign spend.
    let memberId = b.memberId ?? null;
    if (memberId) await requireMember(s.ctx, teamId, memberId);
    if (b.keyId) {
      const key = await requireKey(s.ctx, teamId, b.keyId);
      if (memberId && key.memberId !== memberId) throw invalid('keyId', `key ${b.keyId} does not belong to member ${memberId}`);
      memberId = key.memberId;
    }
    return postedView(await post(s.ctx, {
      teamId, kind: 'charge', amountMicro: unitsToMicro(parseUInt64(b.amount, 'amount', MAX_AMOUNT_UNITS)), idempotencyKey: b.idempotencyKey,
      category: b.category, billingMethod: b.billingMethod, productId: b.productId, productName: b.productName,
      ownerId: b.ownerId ?? b.keyId ?? '', memberId, keyId: b.keyId ?? null,
    }));
  });
}
