import { Type } from 'typebox';
import { post } from '../../../domain/billing/ledger.ts';
import { unitsToMicro } from '../../../lib/money.ts';
import { parseUInt64 } from '../../../lib/int64.ts';
import { errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';
import { Amount, IdempotencyKey, Posted } from './team-schema.ts';
import { postedView } from './posted-view.ts';

export default function grantVoucherRoute(app: App, s: Services): void {
  app.post('/admin/v1/teams/:userId/vouchers', {
    config: { auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Grant a voucher (spent before cash)', security: OperatorBearer,
      params: UserIdParams,
      body: Type.Object({ amount: Amount, idempotencyKey: IdempotencyKey }),
      response: { 200: Posted, ...errors(400, 401, 404, 409) },
    },
  }, async (req) => postedView(await post(s.ctx, {
    teamId: req.params.userId, kind: 'voucher', amountMicro: unitsToMicro(parseUInt64(req.body.amount, 'amount')), idempotencyKey: req.body.idempotencyKey,
  })));
}
