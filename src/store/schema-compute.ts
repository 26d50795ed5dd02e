// Tables of GPU compute: catalogue (clusters, products, inventory), templates, registry
// credentials and instances. Prices are in units (1/10000 USD); metered money is micro.
import { sql } from 'drizzle-orm';
import { pgTable, text, bigint, bigserial, integer, boolean, jsonb, timestamp, primaryKey, index, doublePrecision } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull();
const ms = (name: string) => bigint(name, { mode: 'number' });

export const gpuClusters = pgTable('gpu_clusters', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  region: text('region').notNull().default(''),
  supportNetworkStorage: boolean('support_network_storage').notNull().default(false),
  supportInstanceNetwork: boolean('support_instance_network').notNull().default(false),
  // the price of the cluster's network storage, shown to tenants (not billed yet)
  storagePriceUnitsPerGbMonth: bigint('storage_price_units_per_gb_month', { mode: 'bigint' }).notNull().default(sql`0`),
  createdAt: createdAt(),
  /**
   * When the operator retired the cluster: it leaves the tenants' lists and takes no new
   * instance, network storage or endpoint; what runs there keeps running. Saving it again clears it.
   */
  retiredAt: timestamp('retired_at', { withTimezone: true, mode: 'date' }),
});

export const gpuProducts = pgTable('gpu_products', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  gpuModel: text('gpu_model').notNull(),
  cpuPerGpu: integer('cpu_per_gpu').notNull(),
  memoryPerGpuGb: integer('memory_per_gpu_gb').notNull(),
  diskPerGpuGb: integer('disk_per_gpu_gb').notNull(),
  minRootfsGb: integer('min_rootfs_gb').notNull().default(10),
  maxRootfsGb: integer('max_rootfs_gb').notNull().default(500),
  priceUnitsPerGpuHour: bigint('price_units_per_gpu_hour', { mode: 'bigint' }).notNull(),
  spotPriceUnitsPerGpuHour: bigint('spot_price_units_per_gpu_hour', { mode: 'bigint' }).notNull(),
  monthlyPriceUnitsPerGpu: bigint('monthly_price_units_per_gpu', { mode: 'bigint' }).notNull(),
  billingMethods: jsonb('billing_methods').$type<string[]>().notNull(),
  nodeSelector: jsonb('node_selector').$type<Record<string, string>>().notNull().default({}),
  available: boolean('available').notNull().default(true),
  createdAt: createdAt(),
});

export const gpuInventory = pgTable('gpu_inventory', {
  productId: text('product_id').notNull().references(() => gpuProducts.id),
  clusterId: text('cluster_id').notNull().references(() => gpuClusters.id),
  totalGpus: integer('total_gpus').notNull(),
}, (t) => [primaryKey({ columns: [t.productId, t.clusterId] })]);

export const templates = pgTable('templates', {
  id: text('id').primaryKey(),
  // null for official and community templates published by the operator
  teamId: text('team_id'),
  channel: text('channel').notNull(),
  name: text('name').notNull(),
  readme: text('readme').notNull().default(''),
  type: text('type').notNull().default('instance'),
  image: text('image').notNull(),
  // what reads show: a registry credential id (rga_…), or the mask of an inline credential
  // ("<username>:****") whose AES-256-GCM sealed form is imageAuthEnc (never returned)
  imageAuth: text('image_auth').notNull().default(''),
  imageAuthEnc: text('image_auth_enc').notNull().default(''),
  startCommand: text('start_command').notNull().default(''),
  entrypoint: text('entrypoint').notNull().default(''),
  rootfsSize: integer('rootfs_size').notNull(),
  ports: jsonb('ports').$type<{ type: string; ports: number[] }[]>().notNull().default([]),
  envs: jsonb('envs').$type<{ key: string; value: string }[]>().notNull().default([]),
  tools: jsonb('tools').$type<{ name: string; describe: string; port: number; type: string }[]>().notNull().default([]),
  recommendCards: jsonb('recommend_cards').$type<{ gpuSpecId: string; cardNum: string }[]>().notNull().default([]),
  minCudaVersion: text('min_cuda_version').notNull().default(''),
  createdAt: createdAt(),
  /**
   * When the operator retired a published template: it leaves every list and no instance is
   * created from it any more; instances made from it keep what they copied. Publishing it
   * again clears it.
   */
  retiredAt: timestamp('retired_at', { withTimezone: true, mode: 'date' }),
}, (t) => [index('templates_team').on(t.teamId, t.id), index('templates_channel').on(t.channel, t.id)]);

export const registryAuths = pgTable('registry_auths', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  name: text('name').notNull(),
  username: text('username').notNull(),
  // AES-256-GCM: base64(iv | tag | ciphertext); the password is never returned
  passwordEnc: text('password_enc').notNull(),
  createdAt: createdAt(),
}, (t) => [index('registry_auths_team').on(t.teamId)]);

export const instances = pgTable('instances', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  memberId: text('member_id'),
  keyId: text('key_id'),
  name: text('name').notNull(),
  clusterId: text('cluster_id').notNull(),
  productId: text('product_id').notNull(),
  productName: text('product_name').notNull(),
  templateId: text('template_id'),
  status: text('status').notNull(),
  statusSinceMs: ms('status_since_ms').notNull(),
  statusErrorState: text('status_error_state').notNull().default(''),
  statusErrorMessage: text('status_error_message').notNull().default(''),
  imageUrl: text('image_url').notNull(),
  imageAuthId: text('image_auth_id').notNull().default(''),
  command: text('command').notNull().default(''),
  entrypoint: text('entrypoint').notNull().default(''),
  gpuNum: integer('gpu_num').notNull(),
  cpuNum: integer('cpu_num').notNull(),
  memoryGb: integer('memory_gb').notNull(),
  rootfsSize: integer('rootfs_size').notNull(),
  ports: jsonb('ports').$type<{ port: number; type: string }[]>().notNull().default([]),
  envs: jsonb('envs').$type<{ key: string; value: string }[]>().notNull().default([]),
  tools: jsonb('tools').$type<string[]>().notNull().default([]),
  volumeMounts: jsonb('volume_mounts').$type<{ type: string; size: string; id: string; mountPath: string }[]>().notNull().default([]),
  // where each port answers (the driver's ports()), recorded by the reconciler while the
  // instance runs and emptied when it leaves running: the instance view reads it, never the driver
  portEndpoints: jsonb('port_endpoints').$type<{ port: number; endpoint: string }[]>().notNull().default([]),
  kind: text('kind').notNull().default('gpu'),
  billingMode: text('billing_mode').notNull(),
  // the price this instance is billed at, fixed at creation (or conversion): units per
  // GPU-hour when metered (onDemand, spot), units per GPU-month when monthly
  // (the column keeps its first name; the field name is the accurate one)
  priceUnits: bigint('price_units_per_gpu_hour', { mode: 'bigint' }).notNull(),
  endTimeS: ms('end_time_s').notNull().default(sql`-1`),
  spotStatus: text('spot_status').notNull().default(''),
  spotReclaimTimeS: ms('spot_reclaim_time_s').notNull().default(0),
  // metering: GPU time from meterFromMs on is not billed yet; meteredSeconds and
  // meteredMicro are lifetime totals so each posting is floor(total) - floor(previous)
  meterFromMs: ms('meter_from_ms'),
  meteredSeconds: ms('metered_seconds').notNull().default(0),
  meteredMicro: bigint('metered_micro', { mode: 'bigint' }).notNull().default(sql`0`),
  // reconciliation: when to look at the row again, and who holds it until when
  nextReconcileAtMs: ms('next_reconcile_at_ms'),
  leaseUntilMs: ms('lease_until_ms').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
}, (t) => [
  index('instances_team_id').on(t.teamId, t.id),
  index('instances_team_status').on(t.teamId, t.status, t.id),
  index('instances_due').on(t.nextReconcileAtMs),
  index('instances_capacity').on(t.productId, t.clusterId),
]);

// An instance's log: Gantry's own lines (status changes) and its workload's output, kept
// while the instance is and for a while after it is removed (domain/compute/logs.ts).
export const instanceLogs = pgTable('instance_logs', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  instanceId: text('instance_id').notNull(),
  teamId: text('team_id').notNull(),
  // 'gantry': written by Gantry (status changes); 'workload': read from the driver
  source: text('source').notNull(),
  atMs: ms('at_ms').notNull(),
  line: text('line').notNull(),
}, (t) => [
  index('instance_logs_instance').on(t.instanceId, t.seq),
  // where reading the workload's output goes on from
  index('instance_logs_workload').on(t.instanceId, t.source, t.atMs),
]);

export const networkStorages = pgTable('network_storages', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  clusterId: text('cluster_id').notNull(),
  name: text('name').notNull(),
  sizeGb: integer('size_gb').notNull(),
  createdAt: createdAt(),
}, (t) => [index('network_storages_team').on(t.teamId, t.id)]);

// Usage samples of running instances (domain/compute/metrics.ts): CPU and memory in percent of
// what the instance was given, each of its GPUs' utilization and memory in percent, one row
// per instance per sample (every 15 s), kept 7 days.
export const instanceMetrics = pgTable('instance_metrics', {
  instanceId: text('instance_id').notNull(),
  atMs: ms('at_ms').notNull(),
  cpuPct: doublePrecision('cpu_pct'),
  memPct: doublePrecision('mem_pct'),
  rootDiskPct: doublePrecision('root_disk_pct'),
  // the instance's GPUs, in host index order: id (UUID), utilization and memory used, percent (null: not read)
  gpus: jsonb('gpus').$type<{ id: string; utilPct: number | null; memPct: number | null }[]>().notNull().default([]),
}, (t) => [primaryKey({ columns: [t.instanceId, t.atMs] }), index('instance_metrics_at').on(t.atMs)]);
