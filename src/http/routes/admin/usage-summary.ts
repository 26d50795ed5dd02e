import { Type } from 'typebox';
import { usageSummary } from '../../../domain/usage/summary.ts';
import { errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function usageSummaryRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/admin/v1/teams/:userId/usage', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: "Totals of a team's metered model usage (events, tokens, cost, ledger charges)", security: OperatorBearer,
      params: UserIdParams,
      response: {
        200: Type.Object({
          events: Type.Integer(), requests: Type.Integer({ description: 'distinct request ids' }),
          promptTokens: Type.String(), completionTokens: Type.String(),
          costMicro: Type.String({ description: 'micro-units (1e-6 of 1/10000 USD)' }),
          ledgerCharges: Type.Integer({ description: 'ledger charges of categories llm and batch (one per group of like requests answered in the same second)' }),
          chargedRequests: Type.Integer({ description: 'requests those charges cover (each request once)' }),
          chargedMicro: Type.String({ description: 'what those charges add up to, micro-units (equals costMicro)' }),
        }),
        ...errors(401, 404),
      },
    },
  }, async (req) => usageSummary(s.ctx, req.params.userId));
}
