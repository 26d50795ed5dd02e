// The one explicit list of routes: one operation per file.
import type { App, Services } from '../types.ts';
import systemHealthz from './system/healthz.ts';
import systemMetrics from './system/metrics.ts';
import adminAddMember from './admin/add-member.ts';
import adminChangeMemberRole from './admin/change-member-role.ts';
import adminCreateKey from './admin/create-key.ts';
import adminCreateTeam from './admin/create-team.ts';
import adminDisableMember from './admin/disable-member.ts';
import adminGetTeam from './admin/get-team.ts';
import adminGrantVoucher from './admin/grant-voucher.ts';
import adminListMembers from './admin/list-members.ts';
import adminListModels from './admin/list-models.ts';
import adminListTeamModels from './admin/list-team-models.ts';
import adminListTeamQuotas from './admin/list-team-quotas.ts';
import adminListTeams from './admin/list-teams.ts';
import adminPostCharge from './admin/post-charge.ts';
import adminPostFixedTermBill from './admin/post-fixed-term-bill.ts';
import adminRevokeKey from './admin/revoke-key.ts';
import adminSetCreditLimit from './admin/set-credit-limit.ts';
import adminSetQuotaOverride from './admin/set-quota-override.ts';
import adminSetTeamModels from './admin/set-team-models.ts';
import adminSetTier from './admin/set-tier.ts';
import adminSuspendTeam from './admin/suspend-team.ts';
import adminTopup from './admin/topup.ts';
import adminUpsertModel from './admin/upsert-model.ts';
import adminUpsertQuota from './admin/upsert-quota.ts';
import teamAddMember from './team/add-member.ts';
import teamChangeMemberRole from './team/change-member-role.ts';
import teamCreateKey from './team/create-key.ts';
import teamDisableMember from './team/disable-member.ts';
import teamListKeys from './team/list-keys.ts';
import teamListMembers from './team/list-members.ts';
import teamRevokeKey from './team/revoke-key.ts';
import policyDeletePolicy from './policy/delete-policy.ts';
import policyGetPolicy from './policy/get-policy.ts';
import policySetPolicy from './policy/set-policy.ts';
import billingGetBalance from './billing/get-balance.ts';
import billingListApikeyBills from './billing/list-apikey-bills.ts';
import billingListFixedTermBills from './billing/list-fixed-term-bills.ts';
import billingListUsageBills from './billing/list-usage-bills.ts';
import budgetsCheckBudgetByCost from './budgets/check-budget-by-cost.ts';
import budgetsCheckBudget from './budgets/check-budget.ts';
import budgetsCheckKeyBudgetByCost from './budgets/check-key-budget-by-cost.ts';
import budgetsListKeyBudgets from './budgets/list-key-budgets.ts';
import budgetsListMemberBudgets from './budgets/list-member-budgets.ts';
import budgetsUpdateKeyBudget from './budgets/update-key-budget.ts';
import budgetsUpdateMemberBudget from './budgets/update-member-budget.ts';
import quotasListQuotas from './quotas/list-quotas.ts';

export type RouteRegistrar = (app: App, s: Services) => void;

export const ROUTES: RouteRegistrar[] = [
  systemHealthz,
  systemMetrics,
  adminAddMember,
  adminChangeMemberRole,
  adminCreateKey,
  adminCreateTeam,
  adminDisableMember,
  adminGetTeam,
  adminGrantVoucher,
  adminListMembers,
  adminListModels,
  adminListTeamModels,
  adminListTeamQuotas,
  adminListTeams,
  adminPostCharge,
  adminPostFixedTermBill,
  adminRevokeKey,
  adminSetCreditLimit,
  adminSetQuotaOverride,
  adminSetTeamModels,
  adminSetTier,
  adminSuspendTeam,
  adminTopup,
  adminUpsertModel,
  adminUpsertQuota,
  teamAddMember,
  teamChangeMemberRole,
  teamCreateKey,
  teamDisableMember,
  teamListKeys,
  teamListMembers,
  teamRevokeKey,
  policyDeletePolicy,
  policyGetPolicy,
  policySetPolicy,
  billingGetBalance,
  billingListApikeyBills,
  billingListFixedTermBills,
  billingListUsageBills,
  budgetsCheckBudgetByCost,
  budgetsCheckBudget,
  budgetsCheckKeyBudgetByCost,
  budgetsListKeyBudgets,
  budgetsListMemberBudgets,
  budgetsUpdateKeyBudget,
  budgetsUpdateMemberBudget,
  quotasListQuotas,
];
