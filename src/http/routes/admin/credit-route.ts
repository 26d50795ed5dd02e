import { Type } from 'typebox';
import { post } from '../../../domain/billing/ledger.ts';
import { MAX_AMOUNT_UNITS, unitsToMicro } from '../../../lib/money.ts';
import { parseUInt64 } from '../../../lib/int64.ts';
import { errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { Amount, IdempotencyKey, Posted } from './team-schema.ts';
import { postedView } from './posted-view.ts';
import type { Ctx } from '../../../domain/context.ts';

/** Top-ups and vouchers differ only in the ledger kind they post. */
export function creditRoute(app: App, s: { ctx: Ctx }, kind: 'topup' | 'voucher', url: string, summary: string): void {
  app.post(url, {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary, security: OperatorBearer,
      params: UserIdParams,
      body: Type.Object({ amount: Amount, idempotencyKey: IdempotencyKey }),
      response: { 200: Posted, ...errors(400, 401, 404, 409) },
    },
  }, async (req) => postedView(await post(s.ctx, {
    teamId: req.params.userId, kind, amountMicro: unitsToMicro(parseUInt64(req.body.amount, 'amount', MAX_AMOUNT_UNITS)), idempotencyKey: req.body.idempotencyKey,
  })));
}
