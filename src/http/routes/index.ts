// The one explicit list of routes: one operation per file.
import type { App, Services } from '../types.ts';
import systemHealthz from './system/healthz.ts';
import systemMetrics from './system/metrics.ts';
import systemReadyz from './system/readyz.ts';
import serverlessProxy from './serverless-proxy/proxy.ts';
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
import policyGetMemberPolicy from './policy/get-member-policy.ts';
import policySetMemberPolicy from './policy/set-member-policy.ts';
import policyDeleteMemberPolicy from './policy/delete-member-policy.ts';
import billingGetBalance from './billing/get-balance.ts';
import billingListApikeyBills from './billing/list-apikey-bills.ts';
import billingListFixedTermBills from './billing/list-fixed-term-bills.ts';
import billingListUsageBills from './billing/list-usage-bills.ts';
import billingGetMonthlyStatement from './billing/get-monthly-statement.ts';
import billingSpendSeries from './billing/spend-series.ts';
import budgetsCheckBudgetByCost from './budgets/check-budget-by-cost.ts';
import budgetsCheckBudget from './budgets/check-budget.ts';
import budgetsCheckKeyBudgetByCost from './budgets/check-key-budget-by-cost.ts';
import budgetsListKeyBudgets from './budgets/list-key-budgets.ts';
import budgetsListMemberBudgets from './budgets/list-member-budgets.ts';
import budgetsUpdateKeyBudget from './budgets/update-key-budget.ts';
import budgetsUpdateMemberBudget from './budgets/update-member-budget.ts';
import budgetsGetDefaultKeyBudget from './budgets/get-default-key-budget.ts';
import budgetsUpdateDefaultKeyBudget from './budgets/update-default-key-budget.ts';
import quotasListQuotas from './quotas/list-quotas.ts';
import openaiListModels from './openai/list-models.ts';
import openaiGetModel from './openai/get-model.ts';
import openaiChatCompletions from './openai/chat-completions.ts';
import openaiCompletions from './openai/completions.ts';
import openaiEmbeddings from './openai/embeddings.ts';
import openaiRerank from './openai/rerank.ts';
import openaiCreateResponse from './openai/create-response.ts';
import openaiGetResponse from './openai/get-response.ts';
import openaiDeleteResponse from './openai/delete-response.ts';
import anthropicCreateMessage from './anthropic/create-message.ts';
import anthropicCountTokens from './anthropic/count-tokens.ts';
import adminUsageSummary from './admin/usage-summary.ts';
import adminListJobs from './admin/list-jobs.ts';
// GPU compute (issue 4)
import adminGpuUpsertCluster from './admin/gpu-upsert-cluster.ts';
import adminGpuUpsertProduct from './admin/gpu-upsert-product.ts';
import adminGpuSetInventory from './admin/gpu-set-inventory.ts';
import adminGpuGetCatalogue from './admin/gpu-get-catalogue.ts';
import adminGpuReclaimSpot from './admin/gpu-reclaim-spot.ts';
import adminGpuMigrateInstance from './admin/gpu-migrate-instance.ts';
import computeListProducts from './compute/list-products.ts';
import computeListClusters from './compute/list-clusters.ts';
import computeCreateTemplate from './compute/create-template.ts';
import computeUpdateTemplate from './compute/update-template.ts';
import computeDeleteTemplate from './compute/delete-template.ts';
import computeGetTemplate from './compute/get-template.ts';
import computeListTemplates from './compute/list-templates.ts';
import computeCreateInstance from './compute/create-instance.ts';
import computeListInstances from './compute/list-instances.ts';
import computeGetInstance from './compute/get-instance.ts';
import computeGetInstanceLog from './compute/get-instance-log.ts';
import computeStartInstance from './compute/start-instance.ts';
import computeStopInstance from './compute/stop-instance.ts';
import computeRestartInstance from './compute/restart-instance.ts';
import computeDeleteInstance from './compute/delete-instance.ts';
import computeEditInstance from './compute/edit-instance.ts';
import computeUpgradeInstance from './compute/upgrade-instance.ts';
import computeRenewInstance from './compute/renew-instance.ts';
import computeToMonthlyInstance from './compute/to-monthly-instance.ts';
import computeListRegistryAuths from './compute/list-registry-auths.ts';
import computeSaveRegistryAuth from './compute/save-registry-auth.ts';
import computeDeleteRegistryAuth from './compute/delete-registry-auth.ts';
import computeListNetworkStorages from './compute/list-network-storages.ts';
import computeCreateNetworkStorage from './compute/create-network-storage.ts';
import computeUpdateNetworkStorage from './compute/update-network-storage.ts';
import computeDeleteNetworkStorage from './compute/delete-network-storage.ts';
// Serverless endpoints: the management API (issue 12)
import serverlessListEndpoints from './serverless/list-endpoints.ts';
import serverlessGetEndpoint from './serverless/get-endpoint.ts';
import serverlessCreateEndpoint from './serverless/create-endpoint.ts';
import serverlessUpdateEndpoint from './serverless/update-endpoint.ts';
import serverlessDeleteEndpoint from './serverless/delete-endpoint.ts';
import serverlessGetEndpointLimit from './serverless/get-endpoint-limit.ts';
import serverlessGetEndpointLog from './serverless/get-endpoint-log.ts';
import serverlessGetWorkerLog from './serverless/get-worker-log.ts';
import serverlessGetEndpointMetrics from './serverless/get-endpoint-metrics.ts';
import adminServerlessGetLimits from './admin/serverless-get-limits.ts';
import adminServerlessSetLimits from './admin/serverless-set-limits.ts';
// Files (issue 13) and signed blob links
import filesUploadFile from './files/upload-file.ts';
import filesListFiles from './files/list-files.ts';
import filesGetFile from './files/get-file.ts';
import filesDeleteFile from './files/delete-file.ts';
import filesGetFileContent from './files/get-file-content.ts';
import batchesCreateBatch from './batches/create-batch.ts';
import batchesGetBatch from './batches/get-batch.ts';
import batchesCancelBatch from './batches/cancel-batch.ts';
import batchesListBatches from './batches/list-batches.ts';
import blobsGetBlob from './blobs/get-blob.ts';
// Webhooks (issue 14): the signing secret, team endpoints, their delivery logs
import webhooksGetSecret from './webhooks/get-secret.ts';
import webhooksRotateSecret from './webhooks/rotate-secret.ts';
import webhooksCreateEndpoint from './webhooks/create-endpoint.ts';
import webhooksListEndpoints from './webhooks/list-endpoints.ts';
import webhooksGetEndpoint from './webhooks/get-endpoint.ts';
import webhooksUpdateEndpoint from './webhooks/update-endpoint.ts';
import webhooksDeleteEndpoint from './webhooks/delete-endpoint.ts';
import webhooksListDeliveries from './webhooks/list-deliveries.ts';
import webhooksRetryDelivery from './webhooks/retry-delivery.ts';
import webhooksListEvents from './webhooks/list-events.ts';
// The web console (issue 16): its files and its session
import consoleFiles from './console/assets.ts';
import consoleSignIn from './console/sign-in.ts';
import consoleGetSession from './console/get-session.ts';
import consoleSignOut from './console/sign-out.ts';
// Media: the model catalogue and async tasks (issue 14)
import mediaListModels from './media/list-models.ts';
import mediaUploadModel from './media/upload-model.ts';
import mediaDeleteModel from './media/delete-model.ts';
import adminMediaImportModel from './admin/media-import-model.ts';
import adminMediaDeleteModel from './admin/media-delete-model.ts';
import mediaGetTaskResult from './media/get-task-result.ts';
import mediaTxt2img from './media/txt2img.ts';
import mediaTxt2speech from './media/txt2speech.ts';
import mediaListTasks from './media/list-tasks.ts';
import adminMediaListModels from './admin/media-list-models.ts';
// Per-team storage quotas (issue 29)
import adminGetTeamStorage from './admin/get-team-storage.ts';
import adminSetStorageQuota from './admin/set-storage-quota.ts';
import teamGetStorage from './team/get-storage.ts';

export type RouteRegistrar = (app: App, s: Services) => void;

export const ROUTES: RouteRegistrar[] = [
  systemHealthz,
  systemMetrics,
  systemReadyz,
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
  policyGetMemberPolicy,
  policySetMemberPolicy,
  policyDeleteMemberPolicy,
  billingGetBalance,
  billingListApikeyBills,
  billingListFixedTermBills,
  billingListUsageBills,
  billingGetMonthlyStatement,
  billingSpendSeries,
  budgetsCheckBudgetByCost,
  budgetsCheckBudget,
  budgetsCheckKeyBudgetByCost,
  budgetsListKeyBudgets,
  budgetsListMemberBudgets,
  budgetsUpdateKeyBudget,
  budgetsUpdateMemberBudget,
  budgetsGetDefaultKeyBudget,
  budgetsUpdateDefaultKeyBudget,
  quotasListQuotas,
  openaiListModels,
  openaiGetModel,
  openaiChatCompletions,
  openaiCompletions,
  openaiEmbeddings,
  openaiRerank,
  openaiCreateResponse,
  openaiGetResponse,
  openaiDeleteResponse,
  anthropicCreateMessage,
  anthropicCountTokens,
  adminUsageSummary,
  adminListJobs,
  adminGpuUpsertCluster,
  adminGpuUpsertProduct,
  adminGpuSetInventory,
  adminGpuGetCatalogue,
  adminGpuReclaimSpot,
  adminGpuMigrateInstance,
  computeListProducts,
  computeListClusters,
  computeCreateTemplate,
  computeUpdateTemplate,
  computeDeleteTemplate,
  computeGetTemplate,
  computeListTemplates,
  computeCreateInstance,
  computeListInstances,
  computeGetInstance,
  computeGetInstanceLog,
  computeStartInstance,
  computeStopInstance,
  computeRestartInstance,
  computeDeleteInstance,
  computeEditInstance,
  computeUpgradeInstance,
  computeRenewInstance,
  computeToMonthlyInstance,
  computeListRegistryAuths,
  computeSaveRegistryAuth,
  computeDeleteRegistryAuth,
  computeListNetworkStorages,
  computeCreateNetworkStorage,
  computeUpdateNetworkStorage,
  computeDeleteNetworkStorage,
  filesUploadFile,
  filesListFiles,
  filesGetFile,
  filesDeleteFile,
  filesGetFileContent,
  batchesCreateBatch,
  batchesGetBatch,
  batchesCancelBatch,
  batchesListBatches,
  blobsGetBlob,
  consoleFiles,
  consoleSignIn,
  consoleGetSession,
  consoleSignOut,
  serverlessProxy,
  // serverless management API
  serverlessListEndpoints,
  serverlessGetEndpoint,
  serverlessCreateEndpoint,
  serverlessUpdateEndpoint,
  serverlessDeleteEndpoint,
  serverlessGetEndpointLimit,
  serverlessGetEndpointLog,
  serverlessGetWorkerLog,
  serverlessGetEndpointMetrics,
  adminServerlessGetLimits,
  adminServerlessSetLimits,
  // webhooks
  webhooksGetSecret,
  webhooksRotateSecret,
  webhooksCreateEndpoint,
  webhooksListEndpoints,
  webhooksGetEndpoint,
  webhooksUpdateEndpoint,
  webhooksDeleteEndpoint,
  webhooksListDeliveries,
  webhooksRetryDelivery,
  webhooksListEvents,
  // media
  mediaListModels,
  mediaUploadModel,
  mediaDeleteModel,
  adminMediaImportModel,
  adminMediaDeleteModel,
  adminMediaListModels,
  mediaGetTaskResult,
  mediaTxt2img,
  mediaTxt2speech,
  mediaListTasks,
  // storage quotas
  adminGetTeamStorage,
  adminSetStorageQuota,
  teamGetStorage,
];
