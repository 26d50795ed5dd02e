// The routes of budgets/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import checkBudgetByCost from './check-budget-by-cost.ts';
import checkBudget from './check-budget.ts';
import checkKeyBudgetByCost from './check-key-budget-by-cost.ts';
import listKeyBudgets from './list-key-budgets.ts';
import listMemberBudgets from './list-member-budgets.ts';
import updateKeyBudget from './update-key-budget.ts';
import updateMemberBudget from './update-member-budget.ts';
import getDefaultKeyBudget from './get-default-key-budget.ts';
import updateDefaultKeyBudget from './update-default-key-budget.ts';

export default [
  checkBudgetByCost,
  checkBudget,
  checkKeyBudgetByCost,
  listKeyBudgets,
  listMemberBudgets,
  updateKeyBudget,
  updateMemberBudget,
  getDefaultKeyBudget,
  updateDefaultKeyBudget,
] satisfies RouteRegistrar[];
