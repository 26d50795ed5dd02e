// The routes of compute/: one operation per file, registered in this order (the operator's, admin-*, last).
import type { RouteRegistrar } from '../../types.ts';
import listProducts from './list-products.ts';
import listClusters from './list-clusters.ts';
import createTemplate from './create-template.ts';
import updateTemplate from './update-template.ts';
import deleteTemplate from './delete-template.ts';
import getTemplate from './get-template.ts';
import listTemplates from './list-templates.ts';
import createInstance from './create-instance.ts';
import listInstances from './list-instances.ts';
import getInstance from './get-instance.ts';
import getInstanceLog from './get-instance-log.ts';
import connectInstanceTerminal from './connect-instance-terminal.ts';
import getInstanceMetrics from './get-instance-metrics.ts';
import startInstance from './start-instance.ts';
import stopInstance from './stop-instance.ts';
import restartInstance from './restart-instance.ts';
import deleteInstance from './delete-instance.ts';
import editInstance from './edit-instance.ts';
import upgradeInstance from './upgrade-instance.ts';
import renewInstance from './renew-instance.ts';
import toMonthlyInstance from './to-monthly-instance.ts';
import listRegistryAuths from './list-registry-auths.ts';
import saveRegistryAuth from './save-registry-auth.ts';
import deleteRegistryAuth from './delete-registry-auth.ts';
import listNetworkStorages from './list-network-storages.ts';
import createNetworkStorage from './create-network-storage.ts';
import updateNetworkStorage from './update-network-storage.ts';
import deleteNetworkStorage from './delete-network-storage.ts';
import adminGetCatalogue from './admin-get-catalogue.ts';
import adminMigrateInstance from './admin-migrate-instance.ts';
import adminPublishTemplate from './admin-publish-template.ts';
import adminRetireTemplate from './admin-retire-template.ts';
import adminRetireCluster from './admin-retire-cluster.ts';
import adminReclaimSpot from './admin-reclaim-spot.ts';
import adminSetInventory from './admin-set-inventory.ts';
import adminUpsertCluster from './admin-upsert-cluster.ts';
import adminUpsertProduct from './admin-upsert-product.ts';

export default [
  listProducts,
  listClusters,
  createTemplate,
  updateTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  createInstance,
  listInstances,
  getInstance,
  getInstanceLog,
  connectInstanceTerminal,
  getInstanceMetrics,
  startInstance,
  stopInstance,
  restartInstance,
  deleteInstance,
  editInstance,
  upgradeInstance,
  renewInstance,
  toMonthlyInstance,
  listRegistryAuths,
  saveRegistryAuth,
  deleteRegistryAuth,
  listNetworkStorages,
  createNetworkStorage,
  updateNetworkStorage,
  deleteNetworkStorage,
  adminGetCatalogue,
  adminMigrateInstance,
  adminPublishTemplate,
  adminRetireTemplate,
  adminRetireCluster,
  adminReclaimSpot,
  adminSetInventory,
  adminUpsertCluster,
  adminUpsertProduct,
] satisfies RouteRegistrar[];
