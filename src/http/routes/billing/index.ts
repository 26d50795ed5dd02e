// The routes of billing/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import getBalance from './get-balance.ts';
import listApikeyBills from './list-apikey-bills.ts';
import listFixedTermBills from './list-fixed-term-bills.ts';
import listUsageBills from './list-usage-bills.ts';
import getMonthlyStatement from './get-monthly-statement.ts';
import spendSeries from './spend-series.ts';

export default [
  getBalance,
  listApikeyBills,
  listFixedTermBills,
  listUsageBills,
  getMonthlyStatement,
  spendSeries,
] satisfies RouteRegistrar[];
