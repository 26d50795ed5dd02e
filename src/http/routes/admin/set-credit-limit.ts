import { Type } from 'typebox';
import { parseUInt64 } from '../../../lib/int64.ts';
import { MAX_AMOUNT_UNITS } from '../../../lib/money.ts';
import { setCreditLimit } from '../../../domain/accounts/teams.ts';
import { Empty, UnitsInput, errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function setCreditLimitRoute(app: App, s: { ctx: Ctx }): void {
  app.route({
    method: ['PUT', 'POST'], // POST too: operators' scripts use either verb for a setting
    url: '/admin/v1/teams/:userId/credit-limit',
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Set the credit limit (maximum amount that may be owed)', security: OperatorBearer,
      params: UserIdParams,
      body: Type.Object({ creditLimit: UnitsInput }),
      response: { 200: Empty, ...errors(400, 401, 404) },
    },
    handler: async (req) => {
      await setCreditLimit(s.ctx, req.params.userId, parseUInt64(req.body.creditLimit, 'creditLimit', MAX_AMOUNT_UNITS));
      return {};
    },
  });
}
