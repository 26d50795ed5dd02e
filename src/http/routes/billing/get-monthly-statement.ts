import { Type } from 'typebox';
import {
  listMonthlyStatements, STATEMENT_DEFAULT_MONTHS, STATEMENT_DUE_DAYS, STATEMENT_PAGE_SIZE_DEFAULT, STATEMENT_PAGE_SIZE_MAX,
  STATEMENT_STATUSES,
} from '../../../domain/billing/statement.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

const Money = Type.String({ description: '1/10000 USD' });

const Statement = Type.Object({
  billId: Type.String(),
  userId: Type.String(),
  billingMonth: Type.String({ description: 'YYYY-MM (UTC)' }),
  totalAmount: Type.String({ description: '1/10000 USD; = voucherPayAmount + cashPayAmount + debtAmount' }),
  originTotalAmount: Money,
  voucherPayAmount: Money,
  cashPayAmount: Money,
  debtAmount: Type.String({ description: '1/10000 USD owed (put on credit) for the month' }),
  status: Type.String({ description: STATEMENT_STATUSES.join(' | ') }),
  invoiceUrl: Type.String({ description: 'always empty: no invoices yet' }),
  startTime: Type.String({ description: 'Unix seconds, first second of the month' }),
  endTime: Type.String({ description: 'Unix seconds, first second of the next month' }),
  repaidAmount: Type.String({ description: '1/10000 USD of debtAmount repaid by top-ups (oldest month first)' }),
});

export default function getMonthlyStatementRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/billing/monthly/bill', {
    config: { family: 'billing', auth: { kind: 'key', capability: 'readBilling' } },
    schema: {
      tags: ['billing'], security: KeyBearer,
      summary: `Monthly statements, newest first: one per UTC month with charges (unpaid debt due ${STATEMENT_DUE_DAYS} days after the month)`,
      querystring: Type.Object({
        startMonth: Type.Optional(Type.String({ description: `YYYY-MM; default: the last ${STATEMENT_DEFAULT_MONTHS} months` })),
        page: Type.Optional(Int32({ minimum: 1, description: 'from 1' })),
        pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: STATEMENT_PAGE_SIZE_MAX, description: `default ${STATEMENT_PAGE_SIZE_DEFAULT}` })),
      }),
      response: { 200: Type.Object({ data: Type.Array(Statement) }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ data: await listMonthlyStatements(s.ctx, principalOf(req).teamId, req.query) }));
}
