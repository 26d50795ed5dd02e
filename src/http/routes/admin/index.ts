// The routes of admin/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import addMember from './add-member.ts';
import changeMemberRole from './change-member-role.ts';
import createKey from './create-key.ts';
import createTeam from './create-team.ts';
import disableMember from './disable-member.ts';
import getTeam from './get-team.ts';
import grantVoucher from './grant-voucher.ts';
import listMembers from './list-members.ts';
import listModels from './list-models.ts';
import listTeamModels from './list-team-models.ts';
import listTeamQuotas from './list-team-quotas.ts';
import listTeams from './list-teams.ts';
import postCharge from './post-charge.ts';
import postFixedTermBill from './post-fixed-term-bill.ts';
import revokeKey from './revoke-key.ts';
import setCreditLimit from './set-credit-limit.ts';
import setQuotaOverride from './set-quota-override.ts';
import setTeamModels from './set-team-models.ts';
import setTier from './set-tier.ts';
import suspendTeam from './suspend-team.ts';
import topup from './topup.ts';
import upsertModel from './upsert-model.ts';
import setModelUpstreamKey from './set-model-upstream-key.ts';
import clearModelUpstreamKey from './clear-model-upstream-key.ts';
import getModelHealth from './get-model-health.ts';
import upsertQuota from './upsert-quota.ts';
import usageSummary from './usage-summary.ts';
import listJobs from './list-jobs.ts';
import listTeamBudgets from './list-team-budgets.ts';
import setKeyBudget from './set-key-budget.ts';
import setMemberBudget from './set-member-budget.ts';
import operatorInvite from './operator-invite.ts';
import operatorList from './operator-list.ts';
import operatorRevoke from './operator-revoke.ts';

export default [
  addMember,
  changeMemberRole,
  createKey,
  createTeam,
  disableMember,
  getTeam,
  grantVoucher,
  listMembers,
  listModels,
  listTeamModels,
  listTeamQuotas,
  listTeams,
  postCharge,
  postFixedTermBill,
  revokeKey,
  setCreditLimit,
  setQuotaOverride,
  setTeamModels,
  setTier,
  suspendTeam,
  topup,
  upsertModel,
  setModelUpstreamKey,
  clearModelUpstreamKey,
  getModelHealth,
  upsertQuota,
  usageSummary,
  listJobs,
  listTeamBudgets,
  setMemberBudget,
  setKeyBudget,
  operatorInvite,
  operatorList,
  operatorRevoke,
] satisfies RouteRegistrar[];
